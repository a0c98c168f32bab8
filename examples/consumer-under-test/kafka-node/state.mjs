// The service's final state for convoy (consumers.service.state): each order's version, as JSON.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const db = join(process.env.CONVOY_SERVICE_DIR ?? '.', 'orders');
const state = {};
for (const f of readdirSync(db)) state[decodeURIComponent(f)] = Number(readFileSync(join(db, f), 'utf8'));
process.stdout.write(JSON.stringify(state));
