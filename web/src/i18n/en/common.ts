import type { Messages } from '../messages';
import type { common as vi } from '../vi/common';

export const common: Messages<typeof vi> = {
  appName: 'Shopflow',
  nav: { main: 'Main', flows: 'Flows', connections: 'API connections', setup: 'Shop set-up' },
  logOut: 'Log out',
  loading: 'Loading…',
  language: { label: 'Language', vi: 'Tiếng Việt', en: 'English' },
  retry: 'Retry',
  save: 'Save',
  saved: 'Saved',
  cancel: 'Cancel',
  networkError: 'The server cannot be reached. Check the connection and retry.',
};
