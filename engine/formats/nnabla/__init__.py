"""nnabla's model files: ``.nnp`` (ZIP) and ``.nntxt`` (protobuf text), both ways.

* :mod:`~engine.formats.nnabla.nnp_write` writes compiled programs, settings and parameters
  as ``.nnp`` (:func:`engine.runtime.results.project_nnp` compiles a project for it);
* :func:`~engine.formats.nnabla.nnp_read.read_nnp` reads ``.nnp``/``.nntxt`` back as a project;
* :mod:`~engine.formats.nnabla.graph` is the model both the nnabla and the ONNX importers
  produce, and its conversion to layers through the catalogue;
* :mod:`~engine.formats.nnabla.schema` holds nnabla's protobuf schema.
"""
