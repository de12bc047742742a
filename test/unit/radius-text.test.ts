import t from 'tap';
import { text } from '../../src/radius/attributes.js';

/**
 * RADIUS text attributes hold no NUL (RFC 2865 §5). A router that terminates its strings gets the
 * trailing NULs dropped; a value with a NUL inside counts as absent, so it never reaches a query
 * (PostgreSQL cannot store or compare a NUL in text; fuzzed packets carry them).
 */
t.test('text attributes: trailing NULs dropped, a NUL inside means absent', (t) => {
  t.equal(text({ 'NAS-Identifier': 'lobby-01' }, 'NAS-Identifier'), 'lobby-01');
  t.equal(text({ 'NAS-Identifier': 'lobby-01\u0000' }, 'NAS-Identifier'), 'lobby-01');
  t.equal(text({ 'NAS-Identifier': 'lobby-01\u0000\u0000' }, 'NAS-Identifier'), 'lobby-01');
  t.equal(text({ 'NAS-Identifier': 'lob\u0000by-01' }, 'NAS-Identifier'), undefined);
  t.equal(text({ 'User-Name': ['\u0000guest', 'other'] }, 'User-Name'), undefined, 'the first value counts');
  t.equal(text({ 'User-Name': '\u0000' }, 'User-Name'), '', 'only NULs: empty');
  t.equal(text({ 'Acct-Session-Id': 7 }, 'Acct-Session-Id'), undefined, 'not text');
  t.end();
});
