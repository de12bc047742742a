import t from 'tap';
import { guestLanguage } from '../../src/wifi/index.js';

t.test('the guest language is the Accept-Language favourite among English and Swahili', async (t) => {
  for (const [header, expected] of [
    ['sw-TZ,sw;q=0.9,en;q=0.8', 'sw'],
    ['sw', 'sw'],
    ['en-GB,sw;q=0.5', 'en'],
    ['fr-FR, sw;q=0.7, en;q=0.3', 'sw'],
    ['en;q=0.2, sw;q=0.4', 'sw'],
    ['sw;q=0, en;q=0.1', 'en'],
    ['fr', 'en'],
    ['*', 'en'],
    ['', 'en'],
    [undefined, 'en'],
  ] as const)
    t.equal(guestLanguage(header), expected, String(header));
});
