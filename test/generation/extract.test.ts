// Article extraction (core/sources/extract.ts): Readability over linkedom gives the article's
// blocks without the page's navigation, and a large page is parsed in a thread of its own, so
// the event loop `npm start` shares with the API keeps turning meanwhile.
import { describe, expect, it } from 'vitest';
import { extractArticle, extractOffThread } from '../../core/sources/extract.ts';

const page = (paragraphs: number) =>
  `<html lang="fr"><head><title>Le pain</title></head><body><nav><a href="/">Accueil</a></nav><article><h1>Le pain</h1>${'<p>Nous cuisons le pain chaque matin avec de la farine locale et beaucoup de patience.</p>'.repeat(paragraphs)}</article><footer>Mentions légales</footer></body></html>`;

describe('extractArticle', () => {
  it("keeps the article's blocks apart, and leaves the navigation out", () => {
    const article = extractArticle(page(5))!;
    expect(article.title).toBe('Le pain');
    expect(article.lang).toBe('fr');
    expect(article.text.split('\n\n').length).toBeGreaterThanOrEqual(5);
    expect(article.text).not.toContain('Accueil');
    expect(article.text).not.toContain('Mentions');
  });

  it('finds nothing in an empty page', () => {
    expect(extractArticle('<html><body></body></html>')).toBeUndefined();
  });
});

describe('extractOffThread', () => {
  it('parses a large page while the event loop keeps turning', async () => {
    const html = page(30_000); // about 3 MB
    // A timer set now fires before the article comes back only if the parse leaves this
    // thread: parsed here, the answer would be ready before the timer's turn.
    let turned = false;
    setTimeout(() => {
      turned = true;
    }, 0);
    const article = await extractOffThread(html);
    expect(turned).toBe(true);
    expect(article?.title).toBe('Le pain');
    expect(article!.text.length).toBeGreaterThan(100_000);
  });
});
