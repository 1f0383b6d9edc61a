/** Status and profile text handling: entities, HTML formatting, length counting, plain text and sanitizing. */
export { extractEntities, normalizeTagName, type TextEntity } from './entities.js';
export { escapeHtml } from './escape.js';
export { formatBioHtml, formatFieldHtml, formatStatusHtml, linkHtml, type FormatLinks, type LinkStyle } from './format.js';
export { countableLength, graphemeLength, URL_PLACEHOLDER_LENGTH } from './length.js';
export { htmlToPlainText } from './plain.js';
export { sanitizeRemoteHtml } from './sanitize.js';
export { extractEmojiShortcodes, isEmojiShortcode } from './emoji.js';
