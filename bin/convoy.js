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
// Exit explicitly: a client library's stray timer must never turn a finished run into a hang.
process.exit(code);
