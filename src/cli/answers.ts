import type { RouterAnswer } from '../wifi/index.js';
import { formatTable } from './output.js';

/** Each router's answer about one session, as a table (or `none` when there were no sessions). */
export const formatAnswers = (answers: readonly RouterAnswer[], none: string): string =>
  answers.length === 0
    ? `${none}\n`
    : formatTable(answers, [
        ['session', (s) => s.session_id],
        ['nas_id', (s) => s.nas_id],
        ['acct_session_id', (s) => s.acct_session_id],
        ['answer', (s) => s.answer],
        ['error_cause', (s) => s.error_cause],
      ]);
