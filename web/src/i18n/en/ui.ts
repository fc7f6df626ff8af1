import type { Catalogue } from '../catalogue';
import type { ui as vi } from '../vi/ui';

export const ui: Catalogue<typeof vi> = {
  shownOnce: 'Copy it now: it is shown only this once.',
  copy: 'Copy',
  copied: 'Copied',
  rename: 'Rename',
  remove: 'Remove',
  edit: 'Edit',
};
