// Copies the repository's LICENSE and NOTICE into the extension folder, so
// that every .vsix ships them (vsce runs this as vscode:prepublish, for
// `npm run package` and scripts/package-platforms.sh alike). The copies
// are build outputs (.gitignore).
const fs = require('fs');
const path = require('path');
for (const f of ['LICENSE', 'NOTICE']) {
  fs.copyFileSync(path.join(__dirname, '..', '..', '..', f), path.join(__dirname, '..', f));
}
