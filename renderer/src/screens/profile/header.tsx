import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { Avatar } from '../../components/account/Avatar';
import { Content, Emojify } from '../../components/html/Content';
import { localMediaUrl } from '../../components/media/local';
import { profilePath } from '../../components/status/Status';

type Account = mastodon.v1.Account;

/**
 * The top of a profile: header image, avatar, names with emojis, badges (locked, bot), moved
 * notice, bio, fields (a verified link gets a check mark named "Verified"), counts and joined date.
 */
export function ProfileHeader(props: { account: Account }): JSX.Element {
  const a = props.account;
  const name = a.displayName || a.username;
  // Only what the instance serves itself (the CSP blocks the rest); Mastodon's blank default is skipped.
  const banner = /missing\.png$/.test(a.header) ? undefined : localMediaUrl(a.headerStatic || a.header);
  return (
    <div class="profile-header">
      <div class="profile-banner">{banner && <img src={banner} alt="" width={700} height={233} decoding="async" />}</div>
      <div class="profile-identity">
        <Avatar account={a} size={88} />
        <div class="profile-names">
          <h1 id="screen-title">
            <Emojify text={name} emojis={a.emojis} />
          </h1>
          <p class="acct">
            @{a.acct}
            {a.locked && <span class="profile-badge">Locked</span>}
            {a.bot && <span class="profile-badge">Bot</span>}
            {a.group && <span class="profile-badge">Group</span>}
          </p>
        </div>
      </div>
      {a.moved && (
        <p class="profile-moved" role="note">
          <Emojify text={name} emojis={a.emojis} /> has moved to{' '}
          <a href={profilePath(a.moved)}>
            @{a.moved.acct}
          </a>
          .
        </p>
      )}
      {a.note && <Content html={a.note} emojis={a.emojis} class="content profile-bio" />}
      {a.fields.length > 0 && (
        <dl class="profile-fields">
          {a.fields.map((f, i) => (
            <div key={i} class={f.verifiedAt ? 'profile-field verified' : 'profile-field'}>
              <dt>
                <Emojify text={f.name} emojis={a.emojis} />
              </dt>
              <dd>
                {f.verifiedAt && (
                  <span class="verified-mark" title={`Verified on ${new Date(f.verifiedAt).toLocaleDateString()}`}>
                    <span aria-hidden="true">✓</span>
                    <span class="visually-hidden">Verified</span>
                  </span>
                )}
                <Content html={f.value} emojis={a.emojis} class="content field-value" />
              </dd>
            </div>
          ))}
        </dl>
      )}
      <p class="profile-counts">
        <span>
          <strong>{a.statusesCount.toLocaleString()}</strong> posts
        </span>
        <a href={`${profilePath(a)}?tab=following`}>
          <strong>{a.followingCount.toLocaleString()}</strong> following
        </a>
        <a href={`${profilePath(a)}?tab=followers`}>
          <strong>{a.followersCount.toLocaleString()}</strong> followers
        </a>
        {a.acct.includes('@') && (
          <a href={a.url} rel="noopener noreferrer" target="_blank">
            Open on its own server
          </a>
        )}
        <span>Joined {new Date(a.createdAt).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' })}</span>
      </p>
    </div>
  );
}
