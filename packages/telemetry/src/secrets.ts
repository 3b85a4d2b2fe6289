/**
 * Masks what looks like a secret before it is written anywhere (logs, span attributes):
 * bearer tokens, API keys of the common providers, JWTs, private-key blocks, and the value
 * of any `key=`/`token:`/`password …`-style assignment. The first four characters stay so
 * that a reader can still tell two secrets apart; the rest becomes "****".
 */
const PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, // OpenAI, Stripe and alike
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
];

// "api_key=abc123", "token: abc123", "password is hunter2", "secret → abc": the value after the name.
const ASSIGNMENT = /\b((?:api[_-]?key|access[_-]?key|secret|token|passw(?:or)?d|pwd|credential|auth)[\w-]*)(\s*(?:[:=]|\bis\b)\s*)(["']?)([^\s"',;]{4,})/gi;

const MASK = "****";

/** `text` with every secret-looking run masked. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const pattern of PATTERNS) out = out.replace(pattern, (match) => `${match.slice(0, 4)}${MASK}`);
  return out.replace(ASSIGNMENT, (_match, name: string, sep: string, quote: string, value: string) => `${name}${sep}${quote}${value.slice(0, 2)}${MASK}`);
}

/** For recording content on spans (opt-in): masked, then cut to `maxChars`. */
export function recordableText(text: string, maxChars: number): string {
  const masked = maskSecrets(text);
  return masked.length > maxChars ? `${masked.slice(0, maxChars)}…` : masked;
}
