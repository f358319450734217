// esbuild plugins both bundles (the CLI's, the Action's) are built with.
import { readFile } from "node:fs/promises";

const FDIR_OPTIONAL_REQUIRE = /__require\.resolve\("picomatch"\);\s*pm = __require\("picomatch"\);/;

/**
 * fdir (under tinyglobby) looks for picomatch with require() when it loads: in a bundle that is a
 * second copy read from node_modules at every start (or none, where node_modules is absent). It
 * gets the copy the bundle already holds for tinyglobby instead. The build fails if fdir's code
 * no longer reads as expected, rather than bundling the lookup unnoticed.
 */
export const fdirBundledPicomatch = {
  name: "fdir-bundled-picomatch",
  setup(b) {
    b.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!FDIR_OPTIONAL_REQUIRE.test(source))
        throw new Error(`${args.path}: fdir's optional require("picomatch") is not where expected`);
      return {
        contents: `import bundledPicomatch from "picomatch";\n${source.replace(FDIR_OPTIONAL_REQUIRE, "pm = bundledPicomatch;")}`,
        loader: "js",
      };
    });
  },
};
