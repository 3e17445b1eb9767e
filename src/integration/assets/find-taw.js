// taw: the one of $TAW_BIN_PATH, taw on PATH, $HERDR_BIN_PATH (with
// HERDR_ENV=1; after taw on PATH, since inside a real herdr it names
// herdr) and the taw that installed this file, that can be run.
function runnable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findTaw(env) {
  if (env.TAW_BIN_PATH && runnable(env.TAW_BIN_PATH)) return env.TAW_BIN_PATH;
  for (const dir of (env.PATH || "").split(delimiter)) {
    if (dir && runnable(join(dir, "taw"))) return join(dir, "taw");
  }
  if (env.HERDR_ENV === "1" && env.HERDR_BIN_PATH && runnable(env.HERDR_BIN_PATH)) {
    return env.HERDR_BIN_PATH;
  }
  return runnable(INSTALLED_BY) ? INSTALLED_BY : null;
}
