// Seeds every fast-check property of the importing test file: FC_SEED replays a run, and the seed is printed.
import fc from 'fast-check';

export const FC_SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: FC_SEED });
console.log(`fast-check seed ${FC_SEED} (replay with FC_SEED=${FC_SEED})`);
