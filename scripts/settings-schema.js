#!/usr/bin/env node
// Generates the editor clients' view of the settings from the one schema,
// server/settings_schema.json:
//   - editors/vscode/package.json: contributes.configuration.properties and
//     capabilities.untrustedWorkspaces (restrictedConfigurations);
//   - editors/nvim/lua/warplens/schema.lua: the keys, types and defaults for
//     :checkhealth warplens.
// (The VS Code extension also reads the schema itself, bundled by esbuild, to
// build the settings it sends; the server embeds it at build time.)
//
//   node scripts/settings-schema.js          # rewrite the generated files
//   node scripts/settings-schema.js --check  # exit 1 and say what differs (ctest settings_schema_sync)
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const schemaPath = path.join(root, 'server', 'settings_schema.json');
const packagePath = path.join(root, 'editors', 'vscode', 'package.json');
const luaPath = path.join(root, 'editors', 'nvim', 'lua', 'warplens', 'schema.lua');

// Our own fields; everything else in an entry is JSON Schema for VS Code.
const ours = new Set(['key', 'side', 'restricted', 'expected', 'blockShape']);

function vscodeProperty(entry) {
  const out = {};
  for (const [k, v] of Object.entries(entry)) if (!ours.has(k)) out[k] = v;
  if (entry.restricted) out.markdownDescription += ' *Ignored in an untrusted workspace unless set in your user settings.*';
  return out;
}

function generatedPackage(schema, pkg) {
  const properties = {};
  for (const entry of schema.settings) properties[`warplens.${entry.key}`] = vscodeProperty(entry);
  const next = JSON.parse(JSON.stringify(pkg));
  next.contributes.configuration = { title: 'warplens', properties };
  next.capabilities = {
    untrustedWorkspaces: {
      supported: 'limited',
      description: 'In an untrusted workspace warplens analyses the code but does not build or run it (Profile and ' +
        'Optimize are disabled), and ignores the workspace\'s values of settings that run programs or send code ' +
        'elsewhere.',
      restrictedConfigurations: schema.settings.filter((e) => e.restricted).map((e) => `warplens.${e.key}`),
    },
    virtualWorkspaces: false,
  };
  return next;
}

function generatedLua(schema) {
  const lines = [
    '-- Generated from server/settings_schema.json by scripts/settings-schema.js; do not edit.',
    '-- The warplens settings (keys relative to `settings = { ... }` in setup): what',
    '-- :checkhealth warplens checks the configured settings against.',
    'return {',
  ];
  for (const e of schema.settings) {
    const types = Array.isArray(e.type) ? e.type : [e.type];
    const fields = [
      `key = ${JSON.stringify(e.key)}`,
      `side = ${JSON.stringify(e.side)}`,
      `types = { ${types.map((t) => JSON.stringify(t)).join(', ')} }`,
    ];
    if (e.enum) fields.push(`enum = { ${e.enum.map((x) => JSON.stringify(x)).join(', ')} }`);
    if (e.minimum !== undefined) fields.push(`minimum = ${e.minimum}`);
    if (e.maximum !== undefined) fields.push(`maximum = ${e.maximum}`);
    if (e.blockShape) fields.push('block_shape = true');
    if (e.restricted) fields.push('restricted = true');
    lines.push(`  { ${fields.join(', ')} },`);
  }
  lines.push('}', '');
  return lines.join('\n');
}

function main() {
  const check = process.argv.includes('--check');
  const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
  const pkgText = fs.readFileSync(packagePath, 'utf8');
  const wantPkg = JSON.stringify(generatedPackage(schema, JSON.parse(pkgText)), null, 2) + '\n';
  const wantLua = generatedLua(schema);
  const haveLua = fs.existsSync(luaPath) ? fs.readFileSync(luaPath, 'utf8') : '';
  const stale = [];
  if (pkgText !== wantPkg) stale.push(path.relative(root, packagePath));
  if (haveLua !== wantLua) stale.push(path.relative(root, luaPath));
  if (check) {
    if (stale.length) {
      console.error(`FAIL generated from server/settings_schema.json but out of date: ${stale.join(', ')}\n` +
        'Run: node scripts/settings-schema.js');
      process.exit(1);
    }
    console.log('settings schema: package.json and schema.lua match server/settings_schema.json');
    return;
  }
  fs.writeFileSync(packagePath, wantPkg);
  fs.writeFileSync(luaPath, wantLua);
  console.log(stale.length ? `updated ${stale.join(', ')}` : 'already up to date');
}

main();
