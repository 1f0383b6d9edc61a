import { deleteRuleRow, findRuleRow, insertRuleRow, listRuleRows, nextRulePosition, updateRuleRow, type RuleRow } from '../../db/repos/instance.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';

/** Longest rule text and hint, as Mastodon's admin form allows. */
export const RULE_TEXT_MAX = 300;
export const RULE_HINT_MAX = 1000;

/** The server rules, in display order. */
export function listRules(deps: Deps): RuleRow[] {
  return listRuleRows(deps.db);
}

function checkRule(text: string, hint: string): void {
  if (text.trim() === '') throw unprocessable("Text can't be blank");
  if (text.length > RULE_TEXT_MAX) throw unprocessable(`Text is too long (maximum is ${RULE_TEXT_MAX} characters)`);
  if (hint.length > RULE_HINT_MAX) throw unprocessable(`Hint is too long (maximum is ${RULE_HINT_MAX} characters)`);
}

/** Adds a rule at the end of the list (or at `position`); returns it. */
export function addRule(deps: Deps, input: { text: string; hint?: string | undefined; position?: number | undefined }): RuleRow {
  const text = input.text.trim();
  const hint = (input.hint ?? '').trim();
  checkRule(text, hint);
  const at = now();
  return deps.db.transaction(() => {
    const row: RuleRow = { id: newId(at), text, hint, position: input.position ?? nextRulePosition(deps.db), created_at: at, updated_at: at };
    insertRuleRow(deps.db, row);
    return row;
  });
}

/** Changes a rule's text, hint or position; 404 when it does not exist. */
export function updateRule(deps: Deps, id: string, changes: { text?: string | undefined; hint?: string | undefined; position?: number | undefined }): RuleRow {
  return deps.db.transaction(() => {
    const current = findRuleRow(deps.db, id);
    if (!current) throw notFound();
    const next: RuleRow = {
      ...current,
      text: changes.text?.trim() ?? current.text,
      hint: changes.hint?.trim() ?? current.hint,
      position: changes.position ?? current.position,
      updated_at: now(),
    };
    checkRule(next.text, next.hint);
    updateRuleRow(deps.db, next);
    return next;
  });
}

/** Removes a rule; 404 when it does not exist. */
export function removeRule(deps: Deps, id: string): void {
  if (deleteRuleRow(deps.db, id) === 0) throw notFound();
}
