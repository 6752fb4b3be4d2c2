"""`swipium init <client> --apply` changes a client config the way the user keeps it (issue 11 item 9,
docs/threat-model.md): the mode stays (a config can hold tokens), a symbolic link stays a link and its target
(a plain file of the user's) gets the entry, every byte already there stays as written (0.1 stays 0.1, big
integers, key order, spacing), and a link to anything else is refused with nothing written."""
import json
import os
import stat
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli_verify_init import CliBase  # noqa: E402

ENTRY = {"type": "stdio", "command": "swipium-mcp", "args": [], "env": {"SWIPIUM_PROJECT_ROOT": "${workspaceFolder}"}}
ORIGINAL = ('{\n    "inputs": [{"id": "token", "type": "promptString", "password": true}],\n'
            '    "servers": {\n        "other": {"command": "x", "timeout": 0.1, "retries": 1e3,\n'
            '                  "big": 12345678901234567890, "ratio": 1.50, "neg": -0.0}\n    },\n'
            '    "sampling": {"temperature": 0.7}\n}\n')


class Apply(CliBase):
    def config(self, client="vscode"):
        d = os.path.join(self.app, ".vscode" if client == "vscode" else ".cursor")
        os.makedirs(d, exist_ok=True)
        return os.path.join(d, "mcp.json")

    def apply(self, client="vscode"):
        r = self.run_cli("init", client, "--apply")
        return r

    def test_numbers_and_layout_kept_entry_added(self):
        path = self.config()
        with open(path, "w") as f:
            f.write(ORIGINAL)
        r = self.apply()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(path) as f:
            text = f.read()
        # every original member is there byte for byte
        for piece in ('"timeout": 0.1', '"retries": 1e3', '"big": 12345678901234567890', '"ratio": 1.50',
                      '"neg": -0.0', '"temperature": 0.7', '"password": true'):
            self.assertIn(piece, text)
        self.assertNotIn("0.10000000000000001", text)
        self.assertNotIn("0.69999999999999996", text)
        doc = json.loads(text)
        self.assertEqual(list(doc["servers"]), ["other", "swipium"])
        self.assertEqual(doc["servers"]["swipium"], ENTRY)
        self.assertEqual(list(doc), ["inputs", "servers", "sampling"])
        # the new member uses the file's own indentation (8 spaces inside "servers")
        self.assertIn('\n        "swipium": {\n            "type": "stdio"', text)
        # removing our entry gives back the original text exactly
        self.assertEqual(text.replace(text[text.index(',\n        "swipium"'):text.index('\n    },\n    "sampling"')], ""),
                         ORIGINAL)

    def test_compact_file_and_missing_member(self):
        path = self.config("cursor")
        with open(path, "w") as f:
            f.write('{"other":{"n":0.1}}')
        r = self.apply("cursor")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(path) as f:
            text = f.read()
        self.assertTrue(text.startswith('{"other":{"n":0.1},"mcpServers":{"swipium":{'), text)
        self.assertEqual(json.loads(text)["mcpServers"]["swipium"]["command"], "swipium-mcp")

    def test_mode_kept(self):
        path = self.config()
        with open(path, "w") as f:
            f.write('{"servers": {}}\n')
        os.chmod(path, 0o600)
        r = self.apply()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertIn("swipium", json.load(open(path))["servers"])
        # a new file is 0644 less the umask
        path = self.config("cursor")
        old = os.umask(0o022)
        try:
            r = self.apply("cursor")
        finally:
            os.umask(old)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644)

    def test_symlink_written_through_to_the_users_file(self):
        dotfiles = os.path.join(self.home, "dotfiles")
        os.makedirs(dotfiles)
        target = os.path.join(dotfiles, "vscode-mcp.json")
        with open(target, "w") as f:
            f.write('{"servers": {"keep": {"command": "k", "t": 0.1}}}\n')
        os.chmod(target, 0o640)
        path = self.config()
        os.symlink(target, path)
        r = self.apply()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(os.path.islink(path), "the link was replaced by a regular file")
        self.assertEqual(os.readlink(path), target)
        with open(target) as f:
            text = f.read()
        self.assertIn('"t": 0.1', text)
        self.assertEqual(json.loads(text)["servers"]["swipium"], ENTRY)
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640)
        self.assertIn("through the link", r.stdout)

    def test_link_to_a_file_of_another_user_or_a_dangling_link_is_refused(self):
        path = self.config()
        os.symlink(os.path.join(self.home, "missing.json"), path)
        r = self.apply()
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("will not write", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.home, "missing.json")))
        if os.geteuid() == 0:
            other = os.path.join(self.home, "other-user.json")
            with open(other, "w") as f:
                f.write('{"servers": {}}')
            os.chown(other, 65534, 65534)
            before = os.stat(other)
            os.unlink(path)
            os.symlink(other, path)
            r = self.apply()
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("not a plain file of yours", r.stderr)
            after = os.stat(other)
            self.assertEqual((before.st_mtime_ns, before.st_size), (after.st_mtime_ns, after.st_size))


if __name__ == "__main__":
    unittest.main(verbosity=2)
