// Output a server sent, made fit for the user's terminal: colours (SGR, `ESC [ … m`) are kept, every other escape
// (OSC titles, clipboard writes and links, DCS, cursor moves, screen clears, 8-bit C1 forms) is dropped whole, and
// so is every control character but tab, line feed and carriage return (docs/security.md, "The client"). A remote
// command's bytes get less trust than a local one's, whose output passes byte for byte. Stateful, so an escape cut
// across two chunks is judged whole: the text of the whole is the text of its pieces, however it was cut.

const ESC = 0x1b;
/** The longest SGR sequence kept; a longer one is dropped. */
const MAX_SGR = 64;

type State = "text" | "escape" | "csi" | "string" | "string-escape" | "nf";

export class SgrOnly {
  private state: State = "text";
  /** The CSI sequence so far (while in "csi"), or "" once it is too long to be kept. */
  private csi = "";
  private csiTooLong = false;

  /** The part of `text` fit for a terminal; what an escape still open at its end turns out to be is decided later. */
  feed(text: string): string {
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const char = text[i] as string;
      const code = text.charCodeAt(i);
      switch (this.state) {
        case "text":
          if (code === ESC) this.state = "escape";
          else if (code === 0x9b) this.beginCsi();
          else if (code === 0x90 || code === 0x98 || (code >= 0x9d && code <= 0x9f)) this.state = "string";
          else if (code === 0x09 || code === 0x0a || code === 0x0d) out += char;
          else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
            // dropped: a control character of no use to a person (BEL, BS, C1…)
          } else out += char;
          break;
        case "escape":
          if (char === "[") this.beginCsi();
          else if (char === "]" || char === "P" || char === "X" || char === "^" || char === "_") this.state = "string";
          else if (code >= 0x20 && code <= 0x2f) this.state = "nf";
          else if (code >= 0x30 && code <= 0x7e) this.state = "text";
          else if (code !== ESC) {
            // Not an escape after all: the ESC is dropped, the character taken as text.
            this.state = "text";
            i--;
          }
          break;
        case "csi":
          if (code >= 0x20 && code <= 0x3f) {
            if (this.csi.length < MAX_SGR) this.csi += char;
            else this.csiTooLong = true;
          } else if (code >= 0x40 && code <= 0x7e) {
            if (char === "m" && !this.csiTooLong && /^[0-9;:]*$/.test(this.csi)) out += `\u001b[${this.csi}m`;
            this.state = "text";
          } else {
            // A sequence cut short: dropped, and the character read as text.
            this.state = "text";
            i--;
          }
          break;
        case "string":
          // OSC, DCS, SOS, PM, APC: everything up to BEL or ST (ESC \ or 0x9c) is dropped.
          if (code === 0x07 || code === 0x9c) this.state = "text";
          else if (code === ESC) this.state = "string-escape";
          break;
        case "string-escape":
          // ESC \ ends the string; any other ESC begins a new escape, as a terminal takes it.
          this.state = "escape";
          if (char === "\\") this.state = "text";
          else i--;
          break;
        case "nf":
          if (code >= 0x30 && code <= 0x7e) this.state = "text";
          else if (!(code >= 0x20 && code <= 0x2f)) {
            this.state = "text";
            i--;
          }
          break;
      }
    }
    return out;
  }

  private beginCsi(): void {
    this.state = "csi";
    this.csi = "";
    this.csiTooLong = false;
  }
}
