/**
 * Run by test/ci/non-root.test.ts as a user without root: the set-up's install path (the
 * same ensureRequirements and defaultApt `convoy setup` uses) for one small Debian package.
 */
import { ensureRequirements, defaultApt } from '../../harness/setup/install.ts';
import { debianPackages } from '../../harness/runtime/requirements.ts';

const pkg = process.argv[2]!;
const apt = defaultApt();
console.log(JSON.stringify({ uid: process.getuid?.(), apt }));
ensureRequirements([{ requirement: debianPackages(pkg, 'a rehearsal package', [pkg]), purpose: 'the non-root rehearsal', by: 'test' }], (l) => console.log(l), apt);
console.log('done');
