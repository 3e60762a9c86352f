import { withAuthenticatedGroup, type UserInfo } from './user-info.js';

/**
 * parseCsv splits CSV text (RFC 4180, as Go's encoding/csv reads it) into records: fields are
 * separated by commas, a field may be quoted with `"` (a quote inside is written `""`, and the
 * field may span lines), CRLF and LF both end a record, and empty lines are skipped. A quote
 * inside an unquoted field, or text after a closing quote, is an error.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark is not data
  let line = 1;
  const n = text.length;
  while (i < n) {
    // An empty line (LF or CRLF) is skipped.
    if (text[i] === '\n') {
      i++;
      line++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      line++;
      continue;
    }
    const record: string[] = [];
    const recordLine = line;
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new Error(`line ${recordLine}: quoted field is not closed, expected a closing "`);
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          if (c === '\r' && text[i + 1] === '\n') {
            i++; // CRLF inside a quoted field reads as LF
            continue;
          }
          field += c;
          i++;
        }
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && !(next === '\r' && text[i + 1] === '\n')) {
          throw new Error(`line ${line}: unexpected ${JSON.stringify(next)} after a quoted field, expected a comma or the end of the line`);
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          if (text[i] === '"') throw new Error(`line ${line}: bare " in an unquoted field, expected the whole field to be quoted`);
          field += text[i];
          i++;
        }
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      // End of the record: a newline or the end of the text.
      if (text[i] === '\r') i++;
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    records.push(record);
  }
  return records;
}

/**
 * parseTokenFile reads a static token file in the format of the Kubernetes API server's
 * --token-auth-file: CSV records `token,user,uid[,"group1,group2"]`. Records with an empty
 * token are skipped; a later record for the same token replaces an earlier one. Every user is
 * also in system:authenticated. source names the file in error messages.
 */
export function parseTokenFile(text: string, source = 'token file'): Map<string, UserInfo> {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new Error(`cannot parse ${source}: ${(err as Error).message}`, { cause: err });
  }
  const users = new Map<string, UserInfo>();
  records.forEach((record, index) => {
    if (record.length < 3) {
      throw new Error(`cannot parse ${source}: record ${index + 1} has ${record.length} column(s), expected at least 3 (token, user name, user uid)`);
    }
    const [token, name, uid, groupList] = record as [string, string, string, string | undefined];
    if (token === '') return;
    const groups = groupList === undefined ? [] : groupList.split(',').filter((g) => g !== '');
    users.set(token, withAuthenticatedGroup(uid === '' ? { name, groups } : { name, uid, groups }));
  });
  return users;
}
