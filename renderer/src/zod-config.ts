// zod compiles fast parsers with `new Function` unless told not to; the renderer's CSP forbids eval, and
// even zod's guarded probe would be reported as a CSP violation. Imported first by main.tsx.
import { z } from 'zod';

z.config({ jitless: true });
