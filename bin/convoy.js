#!/usr/bin/env node
// Entry point: runs the CLI from the compiled tree (bin/compiled-tree.js: built in the cache on
// first use after a change to the sources), or, when it cannot be built or CONVOY_COMPILED=0,
// from the TypeScript sources through tsx.
import './node-guard.js'; // a supported Node, or this runs again on one
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledTree } from './compiled-tree.js';

const tree = await compiledTree();
let entry;
if (tree) {
  // What this process starts (workers, the reaper) runs from the same tree.
  process.env.CONVOY_COMPILED_TREE = tree;
  entry = pathToFileURL(join(tree, 'harness', 'cli', 'main.js')).href;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = '../harness/cli/main.ts';
}
const { main } = await import(entry);
const code = await main(process.argv.slice(2));
// Writes to a pipe are asynchronous: what is still queued for stdout or stderr would be cut off by
// process.exit (a `--json` document cut at 64 KiB). An empty write's callback comes once
// everything before it has gone; bounded, so a reader that never reads cannot hold the exit. A
// reader that has gone (`| head`) is no error of ours.
for (const s of [process.stdout, process.stderr]) s.on('error', () => {});
await Promise.race([
  Promise.all([process.stdout, process.stderr].map((s) => new Promise((done) => s.write('', () => done())))),
  new Promise((done) => setTimeout(done, 30_000).unref()),
]);
// Exit explicitly: a client library's stray timer must never turn a finished run into a hang.
process.exit(code);
