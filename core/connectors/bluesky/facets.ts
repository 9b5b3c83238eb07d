// Rich-text facets for a Bluesky post (docs.bsky.app/docs/advanced-guides/post-richtext): links,
// mentions and hashtags found in the text, each located by byte offsets into its UTF-8
// encoding. Mentions name a DID, so their handles are resolved; one that does not resolve
// stays plain text, as in the Bluesky app.

export type Facet = {
  index: { byteStart: number; byteEnd: number };
  features: (
    | { $type: 'app.bsky.richtext.facet#link'; uri: string }
    | { $type: 'app.bsky.richtext.facet#mention'; did: string }
    | { $type: 'app.bsky.richtext.facet#tag'; tag: string }
  )[];
};

type Found = { start: number; end: number } & (
  | { kind: 'link'; uri: string }
  | { kind: 'mention'; handle: string }
  | { kind: 'tag'; tag: string }
);

const LINK = /(^|[\s(])(https?:\/\/[^\s]+)/giu;
// A mention must not follow a word character, so name@example.com is no mention.
const MENTION = /(^|[\s(])@([a-z0-9][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+)/giu;
const TAG = /(^|\s)[#＃]([^\s#＃]+)/gu;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Drops trailing sentence punctuation, and a closing parenthesis that opened outside. */
function trimLink(uri: string): string {
  let out = uri.replace(/[.,;:!?"']+$/u, '');
  if (out.endsWith(')') && !out.includes('(')) out = out.slice(0, -1);
  return out;
}

/** Links, mentions and tags in `text`, by UTF-16 index, in the order they appear. */
export function findRichText(text: string): Found[] {
  const found: Found[] = [];
  for (const m of text.matchAll(LINK)) {
    const uri = trimLink(m[2]!);
    const start = m.index + m[1]!.length;
    found.push({ kind: 'link', uri, start, end: start + uri.length });
  }
  for (const m of text.matchAll(MENTION)) {
    const handle = m[2]!.replace(/\.+$/, '');
    const start = m.index + m[1]!.length;
    found.push({
      kind: 'mention',
      handle: handle.toLowerCase(),
      start,
      end: start + 1 + handle.length,
    });
  }
  for (const m of text.matchAll(TAG)) {
    const tag = m[2]!.replace(/\p{P}+$/u, '');
    if (!tag || /^\d+$/.test(tag) || [...graphemes.segment(tag)].length > 64) continue;
    const start = m.index + m[1]!.length;
    found.push({ kind: 'tag', tag, start, end: start + 1 + tag.length });
  }
  // A tag or mention inside a link (a URL's #fragment) belongs to the link.
  const links = found.filter((f) => f.kind === 'link');
  return found
    .filter((f) => f.kind === 'link' || !links.some((l) => f.start >= l.start && f.start < l.end))
    .sort((a, b) => a.start - b.start);
}

const byteOffset = (text: string, index: number) => Buffer.byteLength(text.slice(0, index), 'utf8');

/** The facets of `text`, with mentions resolved to DIDs by `resolveHandle`. */
export async function facetsOf(
  text: string,
  resolveHandle: (handle: string) => Promise<string | null>,
): Promise<Facet[]> {
  const facets: Facet[] = [];
  for (const f of findRichText(text)) {
    const index = { byteStart: byteOffset(text, f.start), byteEnd: byteOffset(text, f.end) };
    if (f.kind === 'link')
      facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#link', uri: f.uri }] });
    else if (f.kind === 'tag')
      facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: f.tag }] });
    else {
      const did = await resolveHandle(f.handle);
      if (did)
        facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#mention', did }] });
    }
  }
  return facets;
}
