// Helpers of the connector tests: what a folder holds.
import fs from 'node:fs';

export const ls = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
