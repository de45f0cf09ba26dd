#!/usr/bin/env node
// The admin CLI (`npx tributary …`). Runs the TypeScript sources through tsx, like `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
