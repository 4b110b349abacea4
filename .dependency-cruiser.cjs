// The layers, top to bottom: bin/ → api/ → jobs/ → ingest/ → sql/ → seeds/.
// Each may import the folders below it and none above, so seeds/ imports nothing of
// the project; test/ may import anything, and nothing imports test/. Type-only
// imports count too: they tie the layers together as much as the others do.
const layers = ['bin', 'api', 'jobs', 'ingest', 'sql', 'seeds'];

const notUpward = layers.slice(1).map((layer, i) => ({
  name: `${layer}-not-upward`,
  comment: `${layer}/ imports nothing from ${layers.slice(0, i + 1).join('/, ')}/`,
  severity: 'error',
  from: { path: `^${layer}/` },
  to: { path: `^(${layers.slice(0, i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...notUpward,
    {
      name: 'not-to-test',
      comment: 'the service never depends on its tests',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'a cycle leaves no order in which to read, load or test its modules',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: '^(bin|api|jobs|ingest|sql|seeds|test)/',
    exclude: { path: '^api/console/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    cache: false,
  },
};
