"""O lado de build dos widgets: a diretiva (widgets, partida.js), os arquivos que o navegador
recebe (navegador) e o runtime copiado no fim do build (pos_build). Importa de execucao.
"""

# a classe do contêiner de todo widget (a única fonte): a trava, a diretiva e o PDF acham os widgets por ela
from livro.widgets import CLASSE as CLASSE_WIDGET  # noqa: F401


def vezes(nomes: list[str]) -> list[int]:
    """A vez de cada widget da página, pelo nome: 1 no primeiro com esse nome, 2 no segundo... (o
    sufixo do id, livro.widgets.api.id_do_widget). A diretiva, a trava rápida e a razão contam aqui."""
    return [nomes[:i + 1].count(nome) for i, nome in enumerate(nomes)]
