import type { JSX } from 'preact';
import { localMediaUrl } from '../media/local';

/** An account's picture at a fixed size (no layout shift); decorative, as the name is always next to it. */
export function Avatar(props: { account: { avatar: string; avatarStatic: string }; size?: number; animate?: boolean }): JSX.Element {
  const size = props.size ?? 46;
  return <img class="avatar" src={localMediaUrl(props.animate === false ? props.account.avatarStatic : props.account.avatar)} alt="" width={size} height={size} loading="lazy" decoding="async" />;
}
