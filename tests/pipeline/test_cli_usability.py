"""What a new user trips over on the command line (issue 36): `uth` alone, `--version`,
two outputs asked at once, a kind of finding that does not exist, a log URL scheme no
command writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cli import main


def test_uth_alone_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: uth") and "audit" in out and "error" not in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("uth ")


@pytest.mark.parametrize("command", ["audit", "hands"])
def test_csv_and_json_together_are_refused(command: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("")
    assert main([command, "--source", str(log), "--csv", "--json"]) == 2
    assert "--csv and --json" in capsys.readouterr().err


def test_an_unknown_kind_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("")
    with pytest.raises(SystemExit) as stop:
        main(["audit", "--source", str(log), "--kind", "bogus"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "'bogus' is not a kind of finding" in err and "mispay" in err


def test_simulate_refuses_an_unknown_scheme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--sink", "postgres://x/y", "--tables", "1", "--hands", "1",
                 "--quiet"]) == 2
    assert "postgres://" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # no file named ./postgres:/x/y


def test_load_refuses_a_missing_warehouse_folder(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("")
    target = tmp_path / "no" / "such" / "dir" / "wh.duckdb"
    assert main(["load", "--source", str(log), "--warehouse", str(target), "--quiet"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_schema_to_a_missing_folder_is_a_message(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--out", str(tmp_path / "nonexist" / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "Traceback" not in err
    assert main(["schema", "--out", str(tmp_path / "x.json")]) == 0
    assert "wrote" in capsys.readouterr().err


def test_ten_as_printed_and_replay_says_what_it_wrote(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    assert main(["simulate", "--sink", str(log), "--tables", "1", "--hands", "30",
                 "--seed", "3", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["hands", "--source", str(log), "--card", "10h", "--json"]) == 0
    found = capsys.readouterr().out.splitlines()
    assert found  # 30 hands: a ten of hearts is dealt in some
    assert main(["hands", "--source", str(log), "--card", "Th", "--json"]) == 0
    assert capsys.readouterr().out.splitlines() == found
    import json

    hand = json.loads(found[0])["hand_id"]
    sheet = tmp_path / "sheet.html"
    assert main(["replay", hand, "--source", str(log), "--html", str(sheet)]) == 0
    assert f"wrote the evidence sheet of {hand} to {sheet}" in capsys.readouterr().err
    assert sheet.exists()


def test_an_unknown_time_zone_is_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    assert main(["simulate", "--sink", str(log), "--tables", "1", "--hands", "3",
                 "--quiet"]) == 0
    monkeypatch.setenv("UTH_TIMEZONE", "Mars/Olympus")
    capsys.readouterr()
    assert main(["hands", "--source", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uth hands: UTH_TIMEZONE='Mars/Olympus' is not a known IANA")


def test_a_mistyped_option_names_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["audit", "--source", "x.jsonl", "--tabel", "T01"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: uth audit")
    assert "--tabel: did you mean --table?" in err


@pytest.mark.parametrize("command", ["dashboards", "demo", "load", "schema"])
def test_every_command_has_a_description_and_an_example(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert f"example: uth {command}" in out
    body = out.split("options:")[0]
    assert len([line for line in body.splitlines() if line.strip()]) > 2, body
    if command == "demo":  # every option says what it is
        for option in ("--tables", "--hands", "--seed"):
            line = next(x for x in out.splitlines() if x.strip().startswith(option))
            assert len(line.split()) > 3, line


def test_a_failed_step_is_said_without_internal_class_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["load", "--source", f"sqlite:///{tmp_path}/nope.db",
                 "--warehouse", str(tmp_path / "wh.duckdb")]) == 1
    err = capsys.readouterr().err
    assert "step ingest_events failed: " in err and "nope.db does not exist" in err
    assert "events.logs" not in err and "LogUnavailable" not in err


def test_an_interrupted_step_is_said_as_one() -> None:
    from types import SimpleNamespace

    from pipeline.commands.load import _said

    stopped = SimpleNamespace(cls_name="DagsterExecutionInterruptedError",
                              message="dagster._core.errors.DagsterExecutionInterruptedError\n")
    assert _said(stopped).startswith("interrupted (Ctrl-C or SIGTERM)")
    assert "dagster" not in _said(stopped)


def test_verify_names_the_store_it_checked(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    log, wh = tmp_path / "e.jsonl", tmp_path / "wh.duckdb"
    assert main(["simulate", "--tables", "1", "--hands", "5", "--sink", str(log)]) == 0
    assert main(["keygen", "--out", str(tmp_path / "k")]) == 0
    assert main(["load", "--source", str(log), "--warehouse", str(wh),
                 "--seal-key", str(tmp_path / "k")]) == 0
    capsys.readouterr()
    for flag, store in (("--warehouse", wh), ("--archive", tmp_path / "wh_archive")):
        assert main(["verify", flag, str(store), "--public-key", str(tmp_path / "k.pub")]) == 0
        out = capsys.readouterr().out
        kind = flag.removeprefix("--")
        assert out.startswith(f"{kind} {store} (events from ") and out.rstrip().endswith(
            "intact"), out
