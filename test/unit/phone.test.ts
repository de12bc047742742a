import t from 'tap';
import { normalisePhone, phoneSpellings } from '../../src/lib/phone.js';

t.test('the usual ways of writing a Tanzanian mobile number are one number', async (t) => {
  for (const input of [
    '0712345678',
    '255712345678',
    '+255712345678',
    '00255712345678',
    '712345678',
    ' +255 712 345 678 ',
    '0712-345-678',
    '(0712) 345.678',
  ]) {
    t.equal(normalisePhone(input, '255'), '+255712345678', input);
  }
  t.equal(normalisePhone('0621234567', '255'), '+255621234567', 'Halotel 06x');
});

t.test('numbers that are not Tanzanian mobile numbers are refused', async (t) => {
  for (const input of [
    '',
    '+',
    'abc',
    '07123456789', // one digit too many
    '071234567', // one too few
    '0222123456', // a Dar es Salaam landline: mobile money cannot reach it
    '+255812345678',
    '25571234567',
    '+0712345678',
    '0712345678x',
    '+255 712 345 678 ext 4',
    '12345',
  ]) {
    t.equal(normalisePhone(input, '255'), null, JSON.stringify(input));
  }
});

t.test('the default country is configurable and foreign numbers keep their own code', async (t) => {
  t.equal(normalisePhone('0712345678', '254'), '+254712345678', 'national number in Kenya');
  t.equal(normalisePhone('+254712345678', '255'), '+254712345678', 'a Kenyan number on a TZ box');
  t.equal(normalisePhone('+14155550123', '255'), '+14155550123');
  t.equal(normalisePhone('+1415555012345678', '255'), null, 'longer than E.164 allows');
});

t.test('phoneSpellings: every digits-only way of writing one number, the input first', async (t) => {
  const all = ['+255712345678', '255712345678', '00255712345678', '0712345678', '712345678'];
  for (const input of all) {
    const spellings = phoneSpellings(input, '255');
    t.equal(spellings[0], input, `${input} first`);
    t.same([...spellings].sort(), [...all].sort(), input);
  }
  t.same(
    phoneSpellings('+254712345678', '255').sort(),
    ['+254712345678', '00254712345678', '254712345678'].sort(),
    'a foreign number has no national spelling here',
  );
  t.same(
    phoneSpellings('0712345678', '254').sort(),
    ['+254712345678', '00254712345678', '0712345678', '254712345678'].sort(),
    'no bare national form for a country whose numbering we do not know',
  );
  t.same(phoneSpellings('ada@example.com', '255'), ['ada@example.com'], 'not a number: itself');
  t.same(phoneSpellings('12345', '255'), ['12345']);
});
