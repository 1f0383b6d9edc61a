/**
 * Every limit the instance enforces and advertises, in one place. The instance endpoints publish
 * these values (v1 and v2 `configuration`), and the code that enforces a limit imports it from
 * here, so what clients are told and what the server checks cannot drift apart. The values are
 * Mastodon's defaults, which clients are built around.
 */

/** Limits on authoring statuses. */
export const STATUS_LIMITS = {
  /** Characters per status (spoiler text included), counting every URL as `characters_reserved_per_url`. */
  max_characters: 500,
  max_media_attachments: 4,
  characters_reserved_per_url: 23,
} as const;

/**
 * MIME types accepted for upload: Mastodon's list, without HEIC/HEIF, which the image library we
 * use cannot decode (it reads AVIF, the other HEIF flavour, which stays listed), and without
 * Windows Media (video/x-ms-asf): Mastodon transcodes it, and without a transcoder a browser could
 * not play it. The media layer recognises exactly these from the bytes (api/media/detect.ts).
 */
export const SUPPORTED_MIME_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
  'video/webm',
  'video/mp4',
  'video/quicktime',
  'video/ogg',
  'audio/wave',
  'audio/wav',
  'audio/x-wav',
  'audio/x-pn-wave',
  'audio/vnd.wave',
  'audio/ogg',
  'audio/vorbis',
  'audio/mpeg',
  'audio/mp3',
  'audio/webm',
  'audio/flac',
  'audio/aac',
  'audio/m4a',
  'audio/x-m4a',
  'audio/mp4',
  'audio/3gpp',
];

/** Limits on media uploads. */
export const MEDIA_LIMITS = {
  /** Characters in a media description (alt text). */
  description_limit: 1500,
  /** Bytes per image: 16 MiB. */
  image_size_limit: 16 * 1024 * 1024,
  /** Pixels per image (width × height), 7680 × 4320. */
  image_matrix_limit: 33_177_600,
  /** Bytes per video or audio file: 99 MiB. */
  video_size_limit: 99 * 1024 * 1024,
  video_frame_rate_limit: 120,
  /** Pixels per video frame, 3840 × 2160. */
  video_matrix_limit: 8_294_400,
} as const;

/**
 * How uploads are stored (Mastodon's styles) and the limits on files that are not attachments.
 * Not advertised by the instance endpoints, which have no field for them.
 */
export const MEDIA_PROCESSING = {
  /**
   * Largest picture accepted at all (4 × image_matrix_limit): above image_matrix_limit an upload is
   * scaled down to it; beyond this it is refused, so that no upload can make decoding explode.
   */
  image_max_input_pixels: 4 * 33_177_600,
  /** Area of the `small` preview of an image, 640 × 360. */
  image_small_pixels: 230_400,
  /** Area of a video or audio thumbnail, 1920 × 1080. */
  thumbnail_pixels: 2_073_600,
  /** Bytes per avatar or header: 8 MiB. */
  profile_image_size_limit: 8 * 1024 * 1024,
  avatar_size: { width: 400, height: 400 },
  header_size: { width: 1500, height: 500 },
  /** Bytes per custom emoji image: 256 KiB. */
  emoji_size_limit: 256 * 1024,
} as const;

/** Limits on polls; expirations are in seconds. */
export const POLL_LIMITS = {
  max_options: 4,
  max_characters_per_option: 50,
  /** Five minutes. */
  min_expiration: 300,
  /** One month (a twelfth of a Gregorian year). */
  max_expiration: 2_629_746,
} as const;

/** Limits on accounts that the instance endpoints advertise. */
export const ACCOUNT_LIMITS = {
  max_featured_tags: 10,
  max_pinned_statuses: 5,
} as const;

/** Limits on profiles, enforced by the credentials update (Mastodon's values). */
export const PROFILE_LIMITS = {
  max_display_name_length: 30,
  max_note_length: 500,
  max_profile_fields: 4,
  profile_field_name_limit: 255,
  profile_field_value_limit: 255,
} as const;

/** Other limits Mastodon applies that are not advertised but that clients run into. */
export const OTHER_LIMITS = {
  /** Lists per user. */
  max_lists: 50,
} as const;
