// `npm run bench`: runs each benchmark suite in turn and prints its figures. Never part of npm test.
// BENCH_ONLY=foundation,timeline (or `npm run bench -- foundation timeline`) runs a subset.
const suites = ['foundation', 'signup', 'timeline', 'streaming', 'media', 'federation', 'relay', 'push', 'renderer', 'desktop'];
const named = process.argv.slice(2).flatMap((a) => a.split(',')).filter(Boolean);
const only = named.length > 0 ? named : process.env.BENCH_ONLY?.split(',');
const unknown = (only ?? []).filter((name) => !suites.includes(name));
if (unknown.length > 0) throw new Error(`unknown bench suite: ${unknown.join(', ')} (suites: ${suites.join(', ')})`);
for (const name of suites) {
  if (only && !only.includes(name)) continue;
  console.log(`\n== ${name} ==`);
  const mod = await import(`./${name}.mjs`);
  await mod.run();
}
