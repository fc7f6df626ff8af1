import type { PageTokenOwner } from '../../domain/chat/index.js';
import { Problem } from '../../domain/kernel/index.js';
import type { ChatPlatformAdapter } from './platform-adapter.js';
import { ChatPlatformError } from './platform-errors.js';

/**
 * Linking's proof of ownership (the chat module's `PageTokenOwner`): the platform's own answer to
 * whose token it is. A refusal of the token (190, 104, 2500, any request error) is "no page"; a
 * platform that cannot answer (throttled, down, timed out) is 503 `channel-unavailable`, nothing linked.
 */
export function pageTokenOwner(adapter: ChatPlatformAdapter): PageTokenOwner {
  return async (accessToken) => {
    try {
      return (await adapter.tokenPage(accessToken)).id;
    } catch (error) {
      if (!(error instanceof ChatPlatformError)) throw error;
      if (error.kind === 'unavailable')
        throw new Problem('channel-unavailable', 'the chat platform did not say whose access token this is; nothing was linked, try again');
      return null;
    }
  };
}
