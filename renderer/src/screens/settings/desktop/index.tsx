import type { JSX } from 'preact';
import { QueryState } from '../../../components/layout/section';
import { useDesktopInfo, useDesktopSettings } from './bridge';
import { AboutSection, DataSection } from './data';
import { InstanceSection, NotificationsSection, StartupSection } from './general';
import { OtherAppsSection } from './other-apps';
import './desktop.css';

/**
 * Settings > Desktop (only in Hearth's desktop window): the app's own settings, kept by the
 * desktop app rather than the instance: startup, notifications, port and data folder, the
 * address for other apps, backup and restore, the log.
 */
export function DesktopSettings(): JSX.Element {
  const settings = useDesktopSettings();
  const info = useDesktopInfo();
  return (
    <QueryState query={settings} label="the desktop settings">
      {() => (
        <QueryState query={info} label="the desktop app’s details">
          {() =>
            settings.data &&
            info.data && (
              <>
                <StartupSection settings={settings.data} />
                <NotificationsSection settings={settings.data} />
                <OtherAppsSection info={info.data} />
                <InstanceSection settings={settings.data} info={info.data} />
                <DataSection />
                <AboutSection info={info.data} />
              </>
            )
          }
        </QueryState>
      )}
    </QueryState>
  );
}
