// Words shared by what reads texts: the history import's frequent terms and the genome's key
// terms here, and the generator's keywords (core/generation/offline.ts, through ./service.ts).
// Brand memory owns them because it sits below generation, which already builds on it.

/** Words too common to say anything about a text (English). */
export const STOPWORDS = new Set(
  (
    'about above after again against also because been before being below between both could ' +
    'does doing down during each every from further have having here into itself just more ' +
    'most much must once only other over same should some such than that their theirs them ' +
    'then there these they this those through under until very were what when where which ' +
    'while whom will with would your yours ours ourselves yourself what their there thing ' +
    'things many make made like well even still into onto upon'
  ).split(' '),
);
