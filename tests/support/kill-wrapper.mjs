// Starts the FSAC double so that the first KILLS_TOTAL launches die after a random number
// (5..16) of received messages: crashes at random moments for the resilience test. Later
// launches live. The launch count is kept in KILLS_COUNTER_FILE.
import fs from 'node:fs';

const counterFile = process.env.KILLS_COUNTER_FILE;
const total = Number(process.env.KILLS_TOTAL ?? '0');
let launches = 0;
try {
  launches = Number(fs.readFileSync(counterFile, 'utf8')) || 0;
} catch {
  launches = 0;
}
launches += 1;
fs.writeFileSync(counterFile, String(launches));
if (launches <= total) {
  process.env.FSAC_DOUBLE_EXIT_AFTER = String(5 + Math.floor(Math.random() * 12));
  // A double that dies within a second need not load the compiler.
  process.env.FSAC_DOUBLE_LAZY_COMPILER = '1';
  process.env.FSAC_DOUBLE_NO_CHECKS = '1';
}
await import(new URL('../fsac-double/index.mjs', import.meta.url));
