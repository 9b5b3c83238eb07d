// A source: the page or the text generation writes drafts from.

/** A source as stored: a URL's page once extracted, or a text as given. */
export type SourceRow = {
  id: string;
  account_id: string;
  brand_id: string;
  kind: 'url' | 'text';
  url: string | null;
  title: string | null;
  text: string;
  site_name: string | null;
  lang: string | null;
  content_hash: string | null;
  fetched_at: Date | null;
  created_at: Date;
};
