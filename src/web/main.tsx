// The console's entry point: the token leaves the address bar before anything is drawn (src/web/token.ts).
import { render } from "preact";
import { App } from "./app.js";
import { takeToken } from "./token.js";

const token = takeToken();
const root = document.getElementById("app");
if (root) render(<App initialToken={token} />, root);
