/**
 * TypeBox's `Type` builder, from its CommonJS build. Its ES-module build is 266 files, and under
 * tsx each ES import is a round trip to tsx's loader thread: about 0.35 s of CPU in every process
 * that builds a schema (each CLI command, each test process), against about 0.1 s for the
 * CommonJS build, loaded in-thread. Both builds mark their schemas with the same global symbols.
 * Types still come from '@sinclair/typebox' (`import type`: nothing loaded).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const { Type } = require('@sinclair/typebox') as typeof import('@sinclair/typebox');
