// `npm run bench`: runs each benchmark suite in turn and prints its figures. Never part of npm test.
// BENCH_ONLY=foundation,timeline runs a subset.
const suites = ['foundation', 'timeline', 'streaming', 'media'];
const only = process.env.BENCH_ONLY?.split(',');
for (const name of suites) {
  if (only && !only.includes(name)) continue;
  console.log(`\n== ${name} ==`);
  const mod = await import(`./${name}.mjs`);
  await mod.run();
}
