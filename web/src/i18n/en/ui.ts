import type { Messages } from '../messages';
import type { ui as vi } from '../vi/ui';

export const ui: Messages<typeof vi> = {
  shownOnce: 'Copy it now: it is shown only this once.',
  copy: 'Copy',
  copied: 'Copied',
  rename: 'Rename',
  remove: 'Remove',
  edit: 'Edit',
};
