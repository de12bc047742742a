import t from 'tap';
import { allCommands, buildProgram } from '../../src/cli/index.js';

t.test(
  'every command has a capitalised description, takes --json and shows its full path in usage',
  async (t) => {
    const program = buildProgram();
    t.ok(
      program.options.some((o) => o.long === '--json'),
      '--json is global, so every command takes it',
    );
    for (const cmd of allCommands(program)) {
      const fullPath: string[] = [];
      for (let c: typeof cmd | null = cmd; c && c !== program; c = c.parent) fullPath.unshift(c.name());
      t.match(cmd.description(), /^[A-Z]/, `${fullPath.join(' ')} description`);
      t.match(
        cmd.helpInformation(),
        `Usage: hotspot-ctl ${fullPath.join(' ')}`,
        `${fullPath.join(' ')} usage`,
      );
    }
  },
);
