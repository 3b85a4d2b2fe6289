/**
 * Words that carry no routing signal: English function words, the politeness
 * and filler of chat requests ("could you please help me…"), and words every
 * tool description shares ("tool", "use"). Compared before stemming. The
 * router's tokens leave them out (@switchyard/retrieval), and so does the
 * selector when it asks what a request speaks of.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  // English function words
  "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
  "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
  "did", "do", "does", "doing", "down", "during", "each", "either", "etc", "even", "ever", "every",
  "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
  "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "much",
  "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
  "ourselves", "out", "over", "own", "same", "she", "so", "some", "such", "than", "that", "the", "their", "theirs",
  "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
  "up", "very", "via", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom",
  "whose", "why", "with", "within", "without", "you", "your", "yours", "yourself", "yourselves",
  // pointing back at something named before: "the other one", "another"
  "one", "ones", "another",
  // contractions once the apostrophe has split them ("don't" → "don", "t")
  "don", "doesn", "didn", "isn", "aren", "won", "ll", "re", "ve", "s", "t", "d", "m",
  // request filler
  "please", "pls", "kindly", "thanks", "thank", "hey", "can", "could", "would", "will", "shall", "should", "may",
  "might", "must", "want", "wanna", "need", "like", "let", "lets", "know", "help", "tell", "able", "possible",
  "something", "anything", "someone", "way", "using", "use", "used", "make",
  // every tool is one
  "tool", "tools", "plugin", "plugins",
]);
