"""A parte barata da trava, no `make check`: o estado inicial de cada widget de cada página.

A trava rápida (`make trava-rapida`) roda o código de todas as páginas; o estado inicial dos
widgets não precisa disso: sai de `livro.widgets.api.widget_html`, como a diretiva do build o
monta, e passa pela mesma regra do texto da razão (`razao_texto.widgets_no_html`). Um décimo
de segundo pega o que só a trava via: um rótulo, a opção marcada, um subscrito, um número
formatado de outro jeito (o formatador, o brinquedo e os widgets entram todos aqui).
"""
from conftest import RAIZ

from livro.widgets import api
from livro_ext.trava import rapido, razao, razao_codigo, razao_texto


def estados_dos_widgets(raiz=RAIZ) -> tuple[dict, dict]:
    """({página: {chave: texto}} dos widgets de agora, o mesmo do lock)."""
    lock = razao.ler_lock(raiz / "book" / "numeros.lock.json")
    novos, velhos = {}, {}
    for md in rapido.paginas(raiz):
        pagina = md.with_suffix("").relative_to(raiz).as_posix()
        html = "".join(api.widget_html(nome, api.id_do_widget(nome, vez))
                       for _, nome, vez, _ in razao_codigo.widgets_no_fonte(md.read_text(encoding="utf-8")))
        ws = razao_texto.widgets_no_html(html)
        antigos = {k: v for k, v in lock.get(pagina, {}).items() if k.startswith("widget:")}
        if ws or antigos:
            novos[pagina], velhos[pagina] = ws, antigos
    return novos, velhos


def test_estado_inicial_dos_widgets_e_o_do_lock():
    novos, velhos = estados_dos_widgets()
    assert sum(len(v) for v in novos.values()) >= 9, novos.keys()
    difs = razao.diferencas(velhos, novos)
    assert not difs, ("o estado inicial de um widget mudou em relação ao lock (se é de propósito: "
                      "`make lock`):\n" + "\n".join(difs[:20]))
