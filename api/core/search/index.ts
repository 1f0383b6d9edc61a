import { findStatusSearchSource, indexStatusText, unindexStatus } from '../../db/repos/search.js';
import { htmlToPlainText } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { pollOptionTitles } from '../../db/repos/polls.js';

/**
 * Keeps the full-text index (statuses_fts) in step with statuses: what is indexed is the status's
 * plain text, content warning, poll options and media descriptions. Boosts are not indexed.
 */


/** (Re)indexes one status; runs inside the caller's transaction when there is one. */
export function indexStatus(deps: Deps, statusId: string): void {
  const source = findStatusSearchSource(deps.db, statusId);
  if (!source || source.reblog_of_id !== null) return;
  // Local statuses keep what was typed; remote ones only have HTML.
  const body = source.local && source.text !== '' ? source.text : htmlToPlainText(source.content);
  const texts = [source.spoiler_text, body, ...pollOptionTitles(source.poll_options), source.media_text ?? ''];
  indexStatusText(deps.db, statusId, texts.filter((t) => t !== '').join('\n'));
}

/** Removes a deleted status from the index. */
export function unindexDeletedStatus(deps: Deps, statusId: string): void {
  unindexStatus(deps.db, statusId);
}
