import { sendStaffSms } from '../../src/wifi/messages.js';
import type { TestApp } from './app.js';

/** An SMS record made the way the admin route makes it (for list tests that need many). */
export const sendStaffSmsForTest = (app: TestApp, message: string) =>
  sendStaffSms(app.app.deps, null, { recipient: '+255712345678', message });
