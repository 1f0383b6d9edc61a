import type { JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { Section } from '../../../components/layout/section';
import { desktopError, invokeOutcome, type DesktopInfo } from './bridge';
import { QrCode } from './qr';

/**
 * Copies text: the Clipboard API first; where the window refuses it (the desktop app grants the
 * page no clipboard permission), the selected text of the field through the copy command.
 */
async function copyText(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!field) return false;
    field.select();
    return document.execCommand('copy');
  }
}

/** "Use Hearth from other apps": the HTTPS address, its certificate, and a QR code for phones. */
export function OtherAppsSection(props: { info: DesktopInfo }): JSX.Element {
  const { info } = props;
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [trust, setTrust] = useState<{ ok: boolean; text: string } | null>(null);
  const [trusting, setTrusting] = useState(false);

  const copy = async (): Promise<void> => {
    if (!info.httpsUrl) return;
    const done = await copyText(info.httpsUrl, field.current);
    setCopied(done ? 'The address is copied.' : 'The address could not be copied: select it and copy it by hand.');
  };

  const trustCertificate = async (): Promise<void> => {
    setTrusting(true);
    try {
      setTrust({ ok: true, text: await invokeOutcome('certificate:trust') });
    } catch (error) {
      setTrust({ ok: false, text: desktopError(error) });
    } finally {
      setTrusting(false);
    }
  };

  return (
    <Section title="Use Hearth from other apps">
      {info.httpsUrl ? (
        <>
          <p>Mastodon apps on this computer (web clients such as Phanpy and Elk, too) sign in to this address:</p>
          <label for="desktop-https-url">Address for other apps</label>
          <div class="desktop-copy">
            <input id="desktop-https-url" ref={field} type="text" readOnly value={info.httpsUrl} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => void copy()}>
              Copy address
            </button>
          </div>
          <p role="status" class="hint">
            {copied ?? ''}
          </p>
          <h3 class="desktop-subheading">Certificate</h3>
          <p>Apps accept the address once this computer trusts Hearth’s own certificate.</p>
          {info.canTrustCertificate ? (
            <div class="actions">
              <button type="button" onClick={() => void trustCertificate()} disabled={trusting}>
                {trusting ? 'Trusting…' : 'Trust certificate'}
              </button>
            </div>
          ) : (
            info.certificateHelp && <p class="desktop-instructions">{info.certificateHelp}</p>
          )}
          {trust && (
            <p class={trust.ok ? 'desktop-ok' : 'desktop-error'} role={trust.ok ? 'status' : 'alert'}>
              {trust.text}
            </p>
          )}
          {info.caFile && (
            <p class="hint">
              The certificate’s file: <code>{info.caFile}</code>
            </p>
          )}
        </>
      ) : (
        <p>
          This instance serves no HTTPS address yet, so apps that insist on one cannot sign in. Apps that accept a plain address can use <code>{info.localUrl}</code>.
        </p>
      )}
      <h3 class="desktop-subheading">Phones</h3>
      {info.publicOrigin ? (
        <div class="desktop-qr">
          <QrCode text={info.publicOrigin} label={`QR code of ${info.publicOrigin}`} />
          <p>
            Scan this with your phone to open your instance there, or type its address: <strong class="desktop-address">{info.publicOrigin}</strong>
          </p>
        </div>
      ) : (
        <p>
          Your instance has no public address yet, so phones cannot reach it. Set one up under <a href="/connection">Connection</a>.
        </p>
      )}
    </Section>
  );
}
