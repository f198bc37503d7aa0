"""What a file the session read or wrote says, as condensation keeps it (issue 21): a
project's settings written as code (`hardhat.config.js`, `vite.config.ts`) are kept as a
config file is, values and all, not by the definitions a code file is known by; code named
for the secrets it handles is code, a file that stores them is never kept. Transcripts
made here."""

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


REDACTOR = """#!/usr/bin/env python3
\"\"\"Redact what gitleaks finds in staged files instead of blocking the commit.\"\"\"

import json

MARKER = "***REDACTED***"


def redact_line(line: str, start: int, end: int) -> str:
    secret = line[start:end]
    # Preserve first 4 and last 4 characters for identification
    return line[:start] + secret[:4] + MARKER + secret[-4:] + line[end:]
"""


def test_code_named_for_the_secrets_it_handles_is_kept_a_store_of_them_is_not(
        tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Redact gitleaks findings instead of blocking the commit."),
        call("Write", {"file_path": "/home/u/repo/scripts/redact_gitleaks_secrets.py",
                       "content": REDACTOR}, "w1", "m1"),
        result("File created successfully", "w1"),
        call("Write", {"file_path": "/home/u/repo/app/secrets.py",
                       "content": "# Loaded by settings at import time\n"
                                  "DEPLOY_SIGNING_SALT_VALUE = 'pepper-and-more'\n"}, "w2", "m2"),
        result("File created successfully", "w2"),
        call("Write", {"file_path": "C:\\Users\\me\\repo\\.env",
                       "content": "PLAIN_SETTING_NUMBER_SEVEN=seven-value\n"}, "w3", "m3"),
        result("File created successfully", "w3"),
    ])
    text = render(read_turns(path)[0])
    assert "Redact what gitleaks finds in staged files" in text
    assert "# Preserve first 4 and last 4 characters for identification" in text
    assert "def redact_line(line: str, start: int, end: int)" in text
    assert "pepper-and-more" not in text and "Loaded by settings" not in text
    assert "seven-value" not in text


UNIT = """[Unit]
Description=Telegram relay bot
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=relay
WorkingDirectory=/opt/relay
ExecStart=/opt/relay/.venv/bin/python -m relay --port 8443
Restart=on-failure
RestartSec=5

[Install]
WantedBy=multi-user.target
"""
TERRAFORM = """resource "aws_s3_bucket" "logs" {
  bucket = "acme-build-logs"
}

resource "aws_s3_bucket_lifecycle_configuration" "logs" {
  bucket = aws_s3_bucket.logs.id
  rule {
    id     = "expire"
    status = "Enabled"
    expiration { days = 14 }
  }
}
"""


def test_a_machines_or_deployments_settings_are_kept_as_a_config_file(tmp_path: Path) -> None:
    """A systemd unit written, a Terraform file read: settings, neither prose nor code
    (issue 21: such a body was sent as nothing but its call line)."""
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Run the relay as a service and check the log bucket's retention."),
        call("Write", {"file_path": "/etc/systemd/system/relay.service", "content": UNIT},
             "w1", "m1"),
        result("File created successfully", "w1"),
        call("Read", {"file_path": "/home/u/infra/main.tf"}, "r1", "m2"),
        result("\n".join(f"{i + 1:6}→{ln}" for i, ln in enumerate(TERRAFORM.split("\n"))),
               "r1"),
    ])
    text = render(read_turns(path)[0])
    for value in ("ExecStart=/opt/relay/.venv/bin/python -m relay --port 8443",
                  "Restart=on-failure", "User=relay", 'bucket = "acme-build-logs"',
                  "expiration { days = 14 }"):
        assert value in text
