// Child-process entry for runLoad: reads its options as JSON from argv[2], prints the result JSON.
import { runLoad } from './load.mjs';

const result = await runLoad(JSON.parse(process.argv[2]));
process.stdout.write(JSON.stringify(result));
