#!/usr/bin/env node
// The package's bin: runs the bundled CLI (`npm ci` builds it through the prepare script).
import "../dist/bundle/collabd.js";
