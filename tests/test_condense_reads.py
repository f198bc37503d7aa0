"""What a file the session read says, as condensation keeps it (issue 21): a project's
settings written as code (`hardhat.config.js`, `vite.config.ts`) are kept as a config file
is, values and all, not by the definitions a code file is known by. Transcripts made here."""

from __future__ import annotations

from pathlib import Path

from records import call, result, user, write_jsonl

from capture.condense import render
from capture.transcript import read_turns

HARDHAT = """require("@nomicfoundation/hardhat-toolbox");
require("@openzeppelin/hardhat-upgrades");

/** @type import('hardhat/config').HardhatUserConfig */
module.exports = {
  solidity: {
    version: "0.8.25",
    settings: {
      optimizer: { enabled: true, runs: 200 },
      viaIR: true,
      evmVersion: "cancun"
    }
  },
  networks: {
    localhost: { url: "http://127.0.0.1:8545" },
    sepolia: { chainId: 11155111 }
  }
};
"""


def test_a_config_written_as_code_is_read_as_a_config(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("/init"),
        call("Read", {"file_path": "C:\\Users\\me\\contracts\\hardhat.config.js"}, "r1", "m1"),
        result("\n".join(f"{i + 1:6}→{ln}" for i, ln in enumerate(HARDHAT.split("\n"))),
               "r1"),
        call("Read", {"file_path": "/home/u/app/src/server.js"}, "r2", "m2"),
        result('const express = require("express");\nconst PORT_FALLBACK = 3000;\n'
               'app.listen(process.env.PORT || 8181);\n', "r2"),
    ])
    text = render(read_turns(path)[0])
    for value in ('version: "0.8.25"', "runs: 200", "viaIR: true", 'evmVersion: "cancun"',
                  'url: "http://127.0.0.1:8545"', "chainId: 11155111"):
        assert value in text
    assert "app.listen" not in text  # code is still known by its definitions, not its body
