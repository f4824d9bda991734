// webdriverio for the suites outside this small Node project
// (tests/package): a module resolves packages from its own folder up, and
// this project's node_modules is the one that holds it.
export { remote } from "webdriverio";
