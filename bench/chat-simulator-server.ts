import { startChatPlatform } from '../simulators/chat/index.js';

/** The chat simulator alone on PORT, for the chat benchmark (no send cap worth the name: pages get theirs by control). */
const chat = await startChatPlatform({ port: Number(process.env.PORT) });
process.once('SIGTERM', () => void chat.close().then(() => process.exit(0)));
process.once('SIGINT', () => void chat.close().then(() => process.exit(0)));
