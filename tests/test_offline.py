"""O service worker do livro e as versões dos módulos do worker (livro_ext/widgets/offline.py)."""
import json
import re

from livro_ext.widgets import offline

MANIFESTO = {"versao": "abc123def456", "mjs": {"url": "pyodide/pyodide.mjs"}}


def _modulos(pasta, memoria="export const x = 1;\n"):
    (pasta / "memoria.mjs").write_text(memoria, encoding="utf-8")
    (pasta / "guardado.mjs").write_text('import { x } from "./memoria.mjs";\nexport const y = x;\n', encoding="utf-8")
    (pasta / "worker.mjs").write_text('import {\n  y,\n} from "./guardado.mjs";\nimport { x } from "./memoria.mjs";\n',
                                      encoding="utf-8")
    return offline.versiona_modulos(pasta)


def test_os_imports_levam_o_hash_de_cada_modulo(tmp_path):
    h = _modulos(tmp_path)
    worker = (tmp_path / "worker.mjs").read_text(encoding="utf-8")
    assert f'from "./guardado.mjs?v={h["guardado.mjs"]}"' in worker
    assert f'from "./memoria.mjs?v={h["memoria.mjs"]}"' in worker
    guardado = (tmp_path / "guardado.mjs").read_text(encoding="utf-8")
    assert f'from "./memoria.mjs?v={h["memoria.mjs"]}"' in guardado


def test_versionar_de_novo_nao_muda_nada(tmp_path):
    h1 = _modulos(tmp_path)
    antes = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    assert offline.versiona_modulos(tmp_path) == h1
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == antes


def test_um_modulo_mudado_muda_quem_o_importa(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _modulos(tmp_path / "a")
    b = _modulos(tmp_path / "b", memoria="export const x = 2;\n")
    assert a["memoria.mjs"] != b["memoria.mjs"]
    assert a["guardado.mjs"] != b["guardado.mjs"]   # importa memoria.mjs
    assert a["worker.mjs"] != b["worker.mjs"]       # importa os dois


def _site(tmp_path):
    (tmp_path / "index.html").write_text("<p>oi</p>", encoding="utf-8")
    (tmp_path / "_static" / "pyodide").mkdir(parents=True)
    (tmp_path / "_static" / "pyodide" / "x.gz.0").write_bytes(b"runtime")
    return tmp_path


def _constante(texto, nome):
    return json.loads(re.search(rf"const {nome} = (.*?);", texto).group(1))


def test_o_service_worker_leva_a_versao_e_o_que_guardar(tmp_path, monkeypatch):
    monkeypatch.delenv("LIVRO_OFFLINE", raising=False)
    site = _site(tmp_path)
    texto = offline.escreve(site, MANIFESTO, {"worker.mjs": "1", "memoria.mjs": "9dff"}).read_text(encoding="utf-8")
    versao = _constante(texto, "VERSAO")
    assert versao.startswith(MANIFESTO["versao"] + "-")
    assert _constante(texto, "GUARDAR") == ["_static/widgets/worker.mjs?v=abc123def456", "_static/widgets/memoria.mjs?v=9dff",
                                            "_static/pyodide/pyodide.mjs", "_static/pyodide/manifesto.json"]
    # o texto de uma página muda a versão (um deploy só de texto troca o cache); o runtime, não
    (site / "_static" / "pyodide" / "x.gz.0").write_bytes(b"outro")
    assert _constante(offline.escreve(site, MANIFESTO, {}).read_text(encoding="utf-8"), "VERSAO") == versao
    (site / "index.html").write_text("<p>olá</p>", encoding="utf-8")
    assert _constante(offline.escreve(site, MANIFESTO, {}).read_text(encoding="utf-8"), "VERSAO") != versao


def test_desligado_escreve_o_que_apaga_e_se_desregistra(tmp_path, monkeypatch):
    monkeypatch.setenv("LIVRO_OFFLINE", "0")
    assert not offline.ligado()
    texto = offline.escreve(_site(tmp_path), MANIFESTO, {}).read_text(encoding="utf-8")
    assert "unregister()" in texto and "caches.delete" in texto and "fetch" not in texto
