// The activities of the relay benchmark (bench/relay.mjs), as a fediverse peer would send them:
// pure functions building ActivityStreams JSON, no I/O. Senders are `<origin>/users/u<k>`; the
// first `known` of them have met the instance before the backlog (each sent one public note, its
// "warm-up note", while the instance was online), the others are new to it.
//
// A sender's activities, by position j (per 100: 80 public notes, 5 mentions, 10 Likes, 5
// Announces): j % 10 == 5 a Like, j % 20 == 9 an Announce, j % 20 == 0 a public note mentioning the
// reader (so a new sender's first activity, j = 0, is a mention: first contact), else a public
// note. Likes and Announces point at the reader's own posts and the warm-up notes, a different
// target each time for one sender (a second Like of the same status would change nothing).
// Every activity has exactly one effect in the instance's database: a status (Create, Announce)
// or a favourite (Like).
export const AS = 'https://www.w3.org/ns/activitystreams';
export const PUBLIC = `${AS}#Public`;

/** The sender actor URL of index k. */
export const actorOf = (origin, k) => `${origin}/users/u${k}`;

/** The warm-up note of known sender k (sent while the instance is online). */
export const warmNoteOf = (origin, k) => `${actorOf(origin, k)}/statuses/w`;

/** What the activity at position j of a sender is. */
export function roleOf(j) {
  if (j % 10 === 5) return 'like';
  if (j % 20 === 9) return 'announce';
  if (j % 20 === 0) return 'mention';
  return 'note';
}

function note(actor, id, published, content, mention) {
  const cc = [`${actor}/followers`];
  if (mention) cc.push(mention.uri);
  return {
    id,
    type: 'Note',
    attributedTo: actor,
    url: id.replace('/users/', '/@').replace('/statuses/', '/'),
    published,
    to: [PUBLIC],
    cc,
    content: mention
      ? `<p><span class="h-card"><a href="${mention.url}" class="u-url mention">@<span>${mention.username}</span></a></span> ${content}</p>`
      : `<p>${content}</p>`,
    ...(mention ? { tag: [{ type: 'Mention', href: mention.uri, name: `@${mention.username}@${mention.host}` }] } : {}),
  };
}

/** A Create of a public note (mentioning `mention` when given). */
export function createActivity(actor, noteId, published, content, mention = null) {
  const object = note(actor, noteId, published, content, mention);
  return { '@context': AS, id: `${noteId}/activity`, type: 'Create', actor, published, to: object.to, cc: object.cc, object };
}

/**
 * The backlog: `senders` × `perSender` activities in the order a peer's queue would deliver them
 * (round by round over the senders: time-ordered, senders interleaved), except that the new
 * senders' first activities come first, so that first contact can be timed apart. `targets` are
 * the statuses Likes and Announces point at. Returns the activities (each `{ k, activity }`), the
 * ids of the first-contact notes, and the effects expected.
 */
export function backlogPlan({ origin, senders, known, perSender, targets, reader, tag = 'b', startMs }) {
  const out = [];
  const firstContact = [];
  const expected = { statuses: 0, favourites: 0, notes: 0, mentions: 0, likes: 0, announces: 0 };
  const total = senders * perSender;
  let n = 0;
  const make = (k, j) => {
    const actor = actorOf(origin, k);
    // Published times spread back over the backlog, oldest first, 100 ms apart.
    const published = new Date(startMs - (total - n++) * 100).toISOString();
    const role = roleOf(j);
    const id = `${actor}/statuses/${tag}${j}`;
    if (role === 'like') {
      const target = targets[(k * 7 + Math.floor(j / 10)) % targets.length];
      expected.favourites++;
      expected.likes++;
      return { '@context': AS, id: `${actor}#likes/${tag}${j}`, type: 'Like', actor, object: target };
    }
    expected.statuses++;
    if (role === 'announce') {
      const target = targets[(k * 7 + Math.floor(targets.length / 2) + Math.floor(j / 20)) % targets.length];
      expected.announces++;
      return { '@context': AS, id: `${id}/activity`, type: 'Announce', actor, published, to: [PUBLIC], cc: [`${actor}/followers`], object: target };
    }
    if (role === 'mention') {
      expected.mentions++;
      return createActivity(actor, id, published, `a word for you, number ${j} from u${k}, about the garden`, reader);
    }
    expected.notes++;
    return createActivity(actor, id, published, `Relay benchmark note ${j} from u${k}, with a few words about the weather, cats and the garden.`);
  };
  for (let k = known; k < senders; k++) {
    const activity = make(k, 0);
    firstContact.push(activity.object.id);
    out.push({ k, activity });
  }
  for (let j = 0; j < perSender; j++) {
    for (let k = 0; k < senders; k++) {
      if (j === 0 && k >= known) continue;
      out.push({ k, activity: make(k, j) });
    }
  }
  return { activities: out, firstContact, expected };
}

/** One public note from each of the senders [from, to) (the warm-ups). */
export function onePerSender({ origin, from, to, tag }) {
  const published = new Date().toISOString();
  const out = [];
  for (let k = from; k < to; k++) {
    const actor = actorOf(origin, k);
    const id = tag === 'w' ? warmNoteOf(origin, k) : `${actor}/statuses/${tag}`;
    out.push({ k, activity: createActivity(actor, id, published, `Hello from u${k}: a first public note.`) });
  }
  return out;
}

/** `count` public notes, round robin over all senders (for the accept latency). */
export function notesRoundRobin({ origin, senders, count, tag }) {
  const published = new Date().toISOString();
  const out = [];
  for (let n = 0; n < count; n++) {
    const k = n % senders;
    const actor = actorOf(origin, k);
    out.push({ k, activity: createActivity(actor, `${actor}/statuses/${tag}${n}`, published, `Accept benchmark note ${n} from u${k}, a few words about the weather.`) });
  }
  return out;
}
