<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>Canvas</name>
    <message>
        <location filename="../../console_app/editor/scene.py" line="+197"/>
        <source>a layer cannot be linked to itself</source>
        <translation>レイヤーを自分自身にリンクすることはできません</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>layer &quot;{source}&quot; has no output to link from</source>
        <translation>レイヤー &quot;{source}&quot; にはリンク元になる出力がありません</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&quot;{source}&quot; is already linked to that input of &quot;{destination}&quot;</source>
        <translation>&quot;{source}&quot; は既に &quot;{destination}&quot; のその入力にリンクされています</translation>
    </message>
    <message>
        <location line="+141"/>
        <source>links go from an output pin to an input pin</source>
        <translation>リンクは出力ピンから入力ピンへ引きます</translation>
    </message>
</context>
<context>
    <name>Commands</name>
    <message>
        <location filename="../../console_app/editor/arguments.py" line="+80"/>
        <source>Rename argument {old} to {new}</source>
        <translation>引数 {old} の名前を {new} に変更</translation>
    </message>
    <message>
        <location filename="../../console_app/editor/clipboard.py" line="+77"/>
        <source>Paste</source>
        <translation>貼り付け</translation>
    </message>
    <message>
        <location filename="../../console_app/editor/create_unit.py" line="+162"/>
        <source>Create Unit {name}</source>
        <translation>Unit {name} の作成</translation>
    </message>
    <message>
        <location filename="../../console_app/editor/edit_tab.py" line="+352"/>
        <source>Insert {type} after {layer}</source>
        <translation>{layer} の後に {type} を挿入</translation>
    </message>
    <message>
        <location filename="../../console_app/editor/networks.py" line="+39"/>
        <source>Duplicate network {name}</source>
        <translation>ネットワーク {name} の複製</translation>
    </message>
    <message>
        <location filename="../../console_app/editor/quantize_dialog.py" line="+263"/>
        <source>Quantize network {name}</source>
        <translation>ネットワーク {name} の量子化</translation>
    </message>
    <message>
        <location filename="../../console_app/editor/scene.py" line="-104"/>
        <source>Delete</source>
        <translation>削除</translation>
    </message>
    <message>
        <location filename="../../console_app/main_window.py" line="+565"/>
        <source>Arrange Layers</source>
        <translation>レイヤーの整列</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/config_tab.py" line="+358"/>
        <source>Set solver {solver}</source>
        <translation>ソルバー {solver} の設定</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/dataset_tab.py" line="+345"/>
        <source>Use built-in dataset {name}</source>
        <translation>組み込みデータセット {name} の使用</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Create dataset from folders</source>
        <translation>フォルダーからのデータセット作成</translation>
    </message>
    <message>
        <location filename="../../engine/graph/commands.py" line="+37"/>
        <source>Connect {source} to {destination}</source>
        <translation>{source} を {destination} に接続</translation>
    </message>
    <message>
        <location line="+29"/>
        <location line="+266"/>
        <source>Add {name}</source>
        <translation>{name} の追加</translation>
    </message>
    <message>
        <location line="-254"/>
        <location line="+268"/>
        <source>Delete {name}</source>
        <translation>{name} の削除</translation>
    </message>
    <message>
        <location line="-251"/>
        <source>Rename {old} to {new}</source>
        <translation>{old} の名前を {new} に変更</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Set {layer}.{key}</source>
        <translation>{layer}.{key} の設定</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Set {key} of {count} layers</source>
        <translation>{count} 個のレイヤーの {key} の設定</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Move {name}</source>
        <translation>{name} の移動</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Move {count} layers</source>
        <translation>{count} 個のレイヤーの移動</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Disconnect {source} from {destination}</source>
        <translation>{source} と {destination} の接続解除</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Add network {name}</source>
        <translation>ネットワーク {name} の追加</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Delete network {name}</source>
        <translation>ネットワーク {name} の削除</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Rename network {old} to {new}</source>
        <translation>ネットワーク {old} の名前を {new} に変更</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>Edit {section}</source>
        <translation>{section} の編集</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Set {key}</source>
        <translation>{key} の設定</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Edit description</source>
        <translation>説明の編集</translation>
    </message>
</context>
<context>
    <name>ConfigTab</name>
    <message>
        <location filename="../../console_app/tabs/config_tab.py" line="-268"/>
        <source>Global Config</source>
        <translation>グローバルコンフィグ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Structure Search</source>
        <translation>構造自動探索</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>[{label}] {key}: expected a value &gt;= {minimum}. Received: {key}={text}</source>
        <translation>[{label}] {key}: {minimum} 以上の値を指定してください。入力値: {key}={text}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>[{label}] {key}: a name is required</source>
        <translation>[{label}] {key}: 名前が必要です</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Optimizer: {name}</source>
        <translation>オプティマイザー: {name}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Monitor: {name}</source>
        <translation>モニター: {name}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Executor: {name}</source>
        <translation>エグゼキューター: {name}</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Add {value}</source>
        <translation>{value} を追加</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Delete</source>
        <translation>削除</translation>
    </message>
    <message>
        <location line="+86"/>
        <source>Description</source>
        <translation>説明</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>not used by the {scheduler} scheduler</source>
        <translation>{scheduler} スケジューラでは使用しません</translation>
    </message>
    <message>
        <location line="+60"/>
        <source>NNC&apos;s default: {get}</source>
        <translation>NNC の既定値: {get}</translation>
    </message>
</context>
<context>
    <name>CreateDataset</name>
    <message>
        <location filename="../../console_app/tabs/create_dataset.py" line="+53"/>
        <source>Create Dataset...</source>
        <translation>データセットの作成...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Create a dataset with a pre-process plugin (tables, split images, strings)</source>
        <translation>前処理プラグインでデータセットを作成します（表、画像の分割、文字列）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Loading plugins...</source>
        <translation>プラグインを読み込んでいます...</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Running %1...</source>
        <translation>%1 を実行中...</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Create Dataset failed: %1</source>
        <translation>データセットの作成に失敗しました: %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Created %1 in %2</source>
        <translation>%2 に %1 を作成しました</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Create Dataset %1</source>
        <translation>データセットの作成 %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Create dataset</source>
        <translation>データセットの作成</translation>
    </message>
</context>
<context>
    <name>CreateUnitDialog</name>
    <message>
        <location filename="../../console_app/editor/create_unit_dialog.py" line="+38"/>
        <source>Create Unit</source>
        <translation>Unit の作成</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Unit network</source>
        <translation>Unit ネットワーク</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Properties to turn into unit arguments:</source>
        <translation>Unit の引数にするプロパティ:</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>a network named &quot;{name}&quot; already exists</source>
        <translation>ネットワーク &quot;{name}&quot; は既にあります</translation>
    </message>
</context>
<context>
    <name>DatasetTab</name>
    <message>
        <location filename="../../console_app/tabs/dataset_tab.py" line="-330"/>
        <source>Shuffle</source>
        <translation>Shuffle</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Image Normalization (1/255)</source>
        <translation>Image Normalization (1/255)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Enable Cache</source>
        <translation>Enable Cache</translation>
    </message>
    <message>
        <location line="+45"/>
        <source>Add</source>
        <translation>追加</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete</source>
        <translation>削除</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Set as main</source>
        <translation>メインに設定</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The main dataset decides the iterations per epoch (NNC&apos;s MainIndex)</source>
        <translation>メインのデータセットが 1 エポックあたりのイテレーション数を決めます (NNC の MainIndex)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Dataset links</source>
        <translation>データセットのリンク</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Link CSV...</source>
        <translation>CSV をリンク...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Create from class folders...</source>
        <translation>クラスフォルダから作成...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Built-in dataset...</source>
        <translation>組み込みデータセット...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Generate now</source>
        <translation>今すぐ生成</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Generate (or download) the built-in dataset and preview it</source>
        <translation>組み込みデータセットを生成 (またはダウンロード) してプレビューします</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>URI</source>
        <translation>URI</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Variable</source>
        <translation>変数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Type</source>
        <translation>タイプ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Header</source>
        <translation>ヘッダー</translation>
    </message>
    <message>
        <location line="+84"/>
        <source>Cannot read the dataset: {exc}</source>
        <translation>データセットを読み込めません: {exc}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>CSV: {path}    rows: {rows}</source>
        <translation>CSV: {path}    行数: {rows}</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>NNC&apos;s sample dataset, here {builtin}: Generate now, or the first run makes it</source>
        <translation>NNC のサンプルデータセット (ここでは {builtin}): [今すぐ生成] を押すか、最初の実行で作成されます</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Dataset name {value!r}: must be new and not empty</source>
        <translation>データセット名 {value!r}: 空でない新しい名前にしてください</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Dataset CSV</source>
        <translation>データセット CSV</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Cannot generate the dataset: {exc}</source>
        <translation>データセットを生成できません: {exc}</translation>
    </message>
    <message>
        <location line="+48"/>
        <source>Cannot create the dataset: {exc}</source>
        <translation>データセットを作成できません: {exc}</translation>
    </message>
</context>
<context>
    <name>EditTab</name>
    <message>
        <location filename="../../console_app/editor/edit_tab.py" line="-225"/>
        <source>Back</source>
        <translation>戻る</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Layers</source>
        <translation>レイヤー</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Properties</source>
        <translation>プロパティ</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Network statistics</source>
        <translation>ネットワーク統計</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Overview</source>
        <translation>全体表示</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Problems</source>
        <translation>問題</translation>
    </message>
</context>
<context>
    <name>EvaluationTab</name>
    <message>
        <location filename="../../console_app/tabs/evaluation_tab.py" line="+90"/>
        <source>CSV...</source>
        <translation>CSV...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Evaluate</source>
        <translation>評価</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Report...</source>
        <translation>レポート...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Write this job&apos;s PowerPoint report (with its evaluation)</source>
        <translation>このジョブの PowerPoint レポートを作成します (評価結果付き)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Save output as CSV...</source>
        <translation>出力を CSV で保存...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Save confusion matrix as CSV...</source>
        <translation>混同行列を CSV で保存...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Job:</source>
        <translation>ジョブ:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Dataset:</source>
        <translation>データセット:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Parameters:</source>
        <translation>パラメータ:</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No evaluation yet</source>
        <translation>評価はまだありません</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Output:</source>
        <translation>出力:</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Output Result</source>
        <translation>出力結果</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Confusion Matrix</source>
        <translation>混同行列</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plugin Results</source>
        <translation>プラグインの結果</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Quantization experiment {0}</source>
        <translation>量子化実験 {0}</translation>
    </message>
    <message>
        <location line="+66"/>
        <source>{name}: not evaluated yet (click Evaluate)</source>
        <translation>{name}: まだ評価されていません ([評価] をクリック)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No job yet: train the project in TRAINING</source>
        <translation>ジョブがありません: 学習タブでプロジェクトを学習してください</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Dataset CSV</source>
        <translation>データセット CSV</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+132"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location line="-118"/>
        <source>Evaluating {name}...</source>
        <translation>{name} を評価中...</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Evaluation failed: </source>
        <translation>評価に失敗しました: </translation>
    </message>
    <message>
        <location line="+15"/>
        <source>{name}: cannot read the evaluation: {exc}</source>
        <translation>{name}: 評価結果を読み込めません: {exc}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{0}: predicted class</source>
        <translation>{0}: 予測クラス</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>{rows} rows of {dataset} with the {checkpoint} parameters ({networks})</source>
        <translation>{dataset} の {rows} 行、{checkpoint} パラメータ ({networks})</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{name}: accuracy {accuracy}, avg. precision {precision}, avg. recall {recall}, avg. F-measure {f}</source>
        <translation>{name}: 精度 {accuracy}、平均適合率 {precision}、平均再現率 {recall}、平均 F 値 {f}</translation>
    </message>
    <message>
        <location line="+55"/>
        <source>Save as CSV</source>
        <translation>CSV で保存</translation>
    </message>
</context>
<context>
    <name>ExportActions</name>
    <message>
        <location filename="../../console_app/export_menu.py" line="+25"/>
        <source>for NeuroCanvas (engine.nn)...</source>
        <translation>NeuroCanvas 用 (engine.nn)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>for nnabla...</source>
        <translation>nnabla 用...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Python code...</source>
        <translation>Python コード...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ONNX...</source>
        <translation>ONNX...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NNP...</source>
        <translation>NNP...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C source...</source>
        <translation>C ソース...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TFLite...</source>
        <translation>TFLite...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PowerPoint report...</source>
        <translation>PowerPoint レポート...</translation>
    </message>
    <message>
        <location filename="../../console_app/export_actions.py" line="+67"/>
        <source>Python (*.py)</source>
        <translation>Python (*.py)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export Python code: {exc}</source>
        <translation>Python コードのエクスポート: {exc}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Exported {out}: {UNTRAINED}; a trained model: right-click its job in TRAINING &gt; Export Python code...</source>
        <translation>{out} をエクスポートしました: {UNTRAINED}。学習済みモデルは、学習タブでジョブを右クリック &gt; Python コードをエクスポート...</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Export ONNX</source>
        <translation>ONNX のエクスポート</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ONNX (*.onnx)</source>
        <translation>ONNX (*.onnx)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export ONNX: {exc}</source>
        <translation>ONNX のエクスポート: {exc}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Export ONNX: {exc}; install the extra: pip install &apos;neurocanvas[onnx]&apos;</source>
        <translation>ONNX のエクスポート: {exc}。追加パッケージをインストールしてください: pip install &apos;neurocanvas[onnx]&apos;</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Exported {target}: {UNTRAINED}; a trained model: right-click its job in TRAINING &gt; Export ONNX...</source>
        <translation>{target} をエクスポートしました: {UNTRAINED}。学習済みモデルは、学習タブでジョブを右クリック &gt; ONNX をエクスポート...</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>PowerPoint report: no job yet; train the project first (TRAINING)</source>
        <translation>PowerPoint レポート: ジョブがありません。先にプロジェクトを学習してください (学習タブ)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>PowerPoint report</source>
        <translation>PowerPoint レポート</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>PowerPoint (*.pptx)</source>
        <translation>PowerPoint (*.pptx)</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Export NNP</source>
        <translation>NNP のエクスポート</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>NNP (*.nnp)</source>
        <translation>NNP (*.nnp)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export NNP: {exc}</source>
        <translation>NNP のエクスポート: {exc}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Exported {target}: {UNTRAINED}; a trained model: its job folder&apos;s results.nnp</source>
        <translation>{target} をエクスポートしました: {UNTRAINED}。学習済みモデルはジョブフォルダの results.nnp です</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Export C source (a new folder)</source>
        <translation>C ソースのエクスポート (新しいフォルダ)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Folder (*)</source>
        <translation>フォルダ (*)</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Export C source: {exc}</source>
        <translation>C ソースのエクスポート: {exc}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Exported {target} (model.c, parameters.c, main.c, Makefile): {UNTRAINED}; a trained model: right-click its job in TRAINING &gt; Export C source...</source>
        <translation>{target} をエクスポートしました (model.c, parameters.c, main.c, Makefile): {UNTRAINED}。学習済みモデルは、学習タブでジョブを右クリック &gt; C ソースをエクスポート...</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Export TFLite</source>
        <translation>TFLite のエクスポート</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TensorFlow Lite (*.tflite)</source>
        <translation>TensorFlow Lite (*.tflite)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export TFLite: {0}</source>
        <translation>TFLite のエクスポート: {0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Exported {0}: {1}; a trained model: right-click its job in TRAINING &gt; Export TFLite...</source>
        <translation>{0} をエクスポートしました: {1}。学習済みモデルは「学習」タブでジョブを右クリックし、TFLite のエクスポート... を選んでください</translation>
    </message>
</context>
<context>
    <name>FolderDatasetDialog</name>
    <message>
        <location filename="../../console_app/tabs/folder_dataset_dialog.py" line="+31"/>
        <source>Gray (1 channel)</source>
        <translation>グレー (1 チャンネル)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>RGB (3 channels)</source>
        <translation>RGB (3 チャンネル)</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Create dataset from class folders</source>
        <translation>クラスフォルダからデータセットを作成</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>keep the size (or 28, or 32x24)</source>
        <translation>サイズを維持 (または 28、32x24)</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Class folders</source>
        <translation>クラスフォルダ</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Folder with one sub-folder per class</source>
        <translation>クラスごとにサブフォルダを持つフォルダ</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Output folder</source>
        <translation>出力フォルダ</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>New or empty output folder</source>
        <translation>新しいまたは空の出力フォルダ</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Image size</source>
        <translation>画像サイズ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Channels</source>
        <translation>チャンネル</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training %</source>
        <translation>学習用 %</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Split seed</source>
        <translation>分割のシード</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Browse...</source>
        <translation>参照...</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Image size: empty, N or WIDTHxHEIGHT with positive integers. Received: {text!r}</source>
        <translation>画像サイズ: 空、N、または 幅x高さ (正の整数) を指定してください。入力: {text!r}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Training %: a number in (0, 100]. Received: {text!r}</source>
        <translation>学習用 %: (0, 100] の数値を指定してください。入力: {text!r}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Split seed: an integer. Received: {text!r}</source>
        <translation>分割のシード: 整数を指定してください。入力: {text!r}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Split seed: a non-negative integer. Received: {seed}</source>
        <translation>分割のシード: 0 以上の整数を指定してください。入力: {seed}</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <location filename="../../console_app/help_pages.py" line="+104"/>
        <source>NeuroCanvas Tour</source>
        <translation>NeuroCanvas ツアー</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Command</source>
        <translation>コマンド</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Shortcut</source>
        <translation>ショートカット</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Keyboard Shortcuts</source>
        <translation>キーボードショートカット</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>&lt;h2&gt;NeuroCanvas&lt;/h2&gt;&lt;p&gt;An open-source, cross-platform Neural Network Console: draw networks, train and evaluate them, export and report. Apache-2.0.&lt;/p&gt;&lt;table cellpadding=&apos;3&apos;&gt;{rows}&lt;/table&gt;</source>
        <translation>&lt;h2&gt;NeuroCanvas&lt;/h2&gt;&lt;p&gt;オープンソースでクロスプラットフォームの Neural Network Console: ネットワークを描き、学習・評価し、エクスポートやレポート作成ができます。Apache-2.0。&lt;/p&gt;&lt;table cellpadding=&apos;3&apos;&gt;{rows}&lt;/table&gt;</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>About NeuroCanvas</source>
        <translation>NeuroCanvas について</translation>
    </message>
    <message>
        <location filename="../../console_app/help_menu.py" line="+53"/>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Tour</source>
        <translation>ツアー(&amp;T)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>キーボードショートカット(&amp;K)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;About NeuroCanvas</source>
        <translation>NeuroCanvas について(&amp;A)</translation>
    </message>
</context>
<context>
    <name>ImportActions</name>
    <message>
        <location filename="../../console_app/import_actions.py" line="+34"/>
        <source>&amp;Import...</source>
        <translation>インポート(&amp;I)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Import an ONNX, NNP or nntxt model, or open an NNC project</source>
        <translation>ONNX、NNP、nntxt のモデルをインポート、または NNC プロジェクトを開きます</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Import</source>
        <translation>インポート</translation>
    </message>
    <message>
        <location line="+10"/>
        <location line="+14"/>
        <source>Import: {exc}</source>
        <translation>インポート: {exc}</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>Save the imported project</source>
        <translation>インポートしたプロジェクトを保存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>NeuroCanvas project (*.ncproj)</source>
        <translation>NeuroCanvas プロジェクト (*.ncproj)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Import: {target}: {value}</source>
        <translation>インポート: {target}: {value}</translation>
    </message>
</context>
<context>
    <name>Init</name>
    <message>
        <location filename="../../console_app/tabs/__init__.py" line="+164"/>
        <source>A training run is still going. Stop it (a checkpoint is saved) and close?</source>
        <translation>学習がまだ実行中です。停止して (チェックポイントを保存します) 閉じますか?</translation>
    </message>
</context>
<context>
    <name>JobMenu</name>
    <message>
        <location filename="../../console_app/tabs/job_menu.py" line="+84"/>
        <source>Export the trained model ({kind})</source>
        <translation>学習済みモデルのエクスポート ({kind})</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_exports.py" line="+38"/>
        <source>Export {name}: {exc}</source>
        <translation>{name} のエクスポート: {exc}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Export {name}: {exc}; pip install &apos;neurocanvas[onnx]&apos;</source>
        <translation>{name} のエクスポート: {exc}。pip install &apos;neurocanvas[onnx]&apos;</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Exported {name} to {path}</source>
        <translation>{name} を {path} にエクスポートしました</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_menu.py" line="+27"/>
        <source>{name}: training from {name2}&apos;s {kind} parameters</source>
        <translation>{name}: {name2} の {kind} パラメータから学習します</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>cannot open {value}: no file manager answered</source>
        <translation>{value} を開けません: ファイルマネージャが応答しません</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>{job}: cannot move it to the trash; nothing was deleted</source>
        <translation>{job}: ゴミ箱に移動できません。何も削除していません</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Evaluate</source>
        <translation>評価</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Train from these parameters</source>
        <translation>このパラメータから学習</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Report...</source>
        <translation>レポート...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export Python code...</source>
        <translation>Python コードをエクスポート...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Export Python code for nnabla...</source>
        <translation>nnabla 用 Python コードをエクスポート...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export ONNX...</source>
        <translation>ONNX をエクスポート...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export C source...</source>
        <translation>C ソースをエクスポート...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export TFLite...</source>
        <translation>TFLite のエクスポート...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export TFLite int8...</source>
        <translation>TFLite int8 のエクスポート...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open job folder</source>
        <translation>ジョブフォルダを開く</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename...</source>
        <translation>名前の変更...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete...</source>
        <translation>削除...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compare selected jobs</source>
        <translation>選択したジョブを比較</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Delete jobs</source>
        <translation>ジョブの削除</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete the job folder(s) {join} and everything in them?</source>
        <translation>ジョブフォルダ {join} とその中身をすべて削除しますか?</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Move to Trash</source>
        <translation>ゴミ箱に移動</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Delete Permanently</source>
        <translation>完全に削除</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Status</source>
        <translation>状態</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Epoch</source>
        <translation>エポック</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Best epoch</source>
        <translation>最良エポック</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Best validation loss</source>
        <translation>最良の検証ロス</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training loss</source>
        <translation>学習ロス</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cost</source>
        <translation>コスト</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Compare jobs</source>
        <translation>ジョブの比較</translation>
    </message>
</context>
<context>
    <name>Jobs</name>
    <message>
        <location filename="../../engine/runtime/checkpoint.py" line="+62"/>
        <source>{job}: no trained parameters yet (checkpoints/{checkpoint})</source>
        <translation>{job}: 学習済みのパラメーターがまだありません（checkpoints/{checkpoint}）</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/evaluator.py" line="+104"/>
        <source>{job}: the project has no executor (CONFIG tab) to evaluate with</source>
        <translation>{job}: プロジェクトに評価に使うエグゼキューターがありません（コンフィグタブ）</translation>
    </message>
    <message>
        <location line="+64"/>
        <source>--dataset {name}: not a dataset of the job ({known}), a CSV file nor builtin:&lt;name&gt;/&lt;split&gt;</source>
        <translation>--dataset {name}: ジョブのデータセット（{known}）でも、CSV ファイルでも、builtin:&lt;name&gt;/&lt;split&gt; でもありません</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/job.py" line="+265"/>
        <source>{root}: no such job folder</source>
        <translation>{root}: そのようなジョブフォルダーはありません</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{root}: not a NeuroCanvas job folder (no network.ncproj/config.json)</source>
        <translation>{root}: NeuroCanvas のジョブフォルダーではありません（network.ncproj/config.json がありません）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{root}: no config.json: its training did not start or failed before its first epoch</source>
        <translation>{root}: config.json がありません: このジョブの学習は始まらなかったか、最初のエポックの前に失敗しました</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{root}: no network.ncproj (the job&apos;s copy of its project)</source>
        <translation>{root}: network.ncproj（ジョブが保存したプロジェクトの写し）がありません</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <location filename="../../console_app/language.py" line="+70"/>
        <source>English</source>
        <translation>English</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Japanese (日本語)</source>
        <translation>日本語 (Japanese)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Follow the system</source>
        <translation>システムに合わせる</translation>
    </message>
    <message>
        <location line="+107"/>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Language</source>
        <translation>言語</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A job is running: the new language is shown when NeuroCanvas starts again.</source>
        <translation>ジョブが実行中です: 新しい言語は NeuroCanvas の次回起動時に表示されます。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../console_app/main_window.py" line="-513"/>
        <source>EDIT</source>
        <translation>編集</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>DATASET</source>
        <translation>データセット</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CONFIG</source>
        <translation>コンフィグ</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>TRAINING</source>
        <translation>学習</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>EVALUATION</source>
        <translation>評価</translation>
    </message>
    <message>
        <location line="+106"/>
        <source>&amp;New</source>
        <translation>新規(&amp;N)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open...</source>
        <translation>開く(&amp;O)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save &amp;As...</source>
        <translation>名前を付けて保存(&amp;A)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Undo</source>
        <translation>元に戻す(&amp;U)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Redo</source>
        <translation>やり直し(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cu&amp;t</source>
        <translation>切り取り(&amp;T)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Copy</source>
        <translation>コピー(&amp;C)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Paste</source>
        <translation>貼り付け(&amp;P)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Delete</source>
        <translation>削除(&amp;D)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Select &amp;All</source>
        <translation>すべて選択(&amp;A)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A&amp;rrange Layers</source>
        <translation>レイヤーを整列(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Create &amp;Unit</source>
        <translation>Unit を作成(&amp;U)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add &amp;Network</source>
        <translation>ネットワークを追加(&amp;N)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Re&amp;name Network...</source>
        <translation>ネットワーク名の変更(&amp;N)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Du&amp;plicate Network</source>
        <translation>ネットワークを複製(&amp;P)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete Net&amp;work...</source>
        <translation>ネットワークを削除(&amp;W)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom &amp;In</source>
        <translation>拡大(&amp;I)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom &amp;Out</source>
        <translation>縮小(&amp;O)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom to &amp;Fit</source>
        <translation>全体を表示(&amp;F)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Snap to Grid</source>
        <translation>グリッドに吸着(&amp;S)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Undo</source>
        <translation>元に戻す</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Redo</source>
        <translation>やり直し</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open &amp;Sample</source>
        <translation>サンプルを開く(&amp;S)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>(no sample projects)</source>
        <translation>(サンプルプロジェクトがありません)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open &amp;Recent</source>
        <translation>最近使ったファイル(&amp;R)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Export</source>
        <translation>エクスポート(&amp;E)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Edit</source>
        <translation>編集(&amp;E)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>(none)</source>
        <translation>(なし)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{title}[*] - NeuroCanvas</source>
        <translation>{title}[*] - NeuroCanvas</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Undo {what}</source>
        <translation>元に戻す(&amp;U) {what}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Redo {what}</source>
        <translation>やり直し(&amp;R) {what}</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+8"/>
        <location line="+53"/>
        <source>NeuroCanvas</source>
        <translation>NeuroCanvas</translation>
    </message>
    <message>
        <location line="-54"/>
        <source>Save the changes to {title}?</source>
        <translation>{title} の変更を保存しますか?</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Open project</source>
        <translation>プロジェクトを開く</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Save project as</source>
        <translation>名前を付けてプロジェクトを保存</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>{0} exists already. Replace it?</source>
        <translation>{0} は既にあります。置き換えますか?</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>NeuroCanvas did not close normally. Recover the unsaved work on this file?

{path}</source>
        <translation>NeuroCanvas は正常に終了しませんでした。このファイルの未保存の作業を復元しますか?

{path}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>NeuroCanvas did not close normally. Recover the unsaved work on an untitled project?</source>
        <translation>NeuroCanvas は正常に終了しませんでした。無題のプロジェクトの未保存の作業を復元しますか?</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Recover unsaved work</source>
        <translation>未保存の作業の復元</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>Opened {path}</source>
        <translation>{path} を開きました</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>{stem}: cannot copy the sample to your projects: {exc}</source>
        <translation>{stem}: サンプルをプロジェクトフォルダにコピーできません: {exc}</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>{path}: cannot save: {exc}</source>
        <translation>{path}: 保存できません: {exc}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Saved {path}</source>
        <translation>{path} を保存しました</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>the autosaved work cannot be read: {exc}</source>
        <translation>自動保存した作業を読み込めません: {exc}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Recovered the autosaved work; save it to keep it</source>
        <translation>自動保存した作業を復元しました。残すには保存してください</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Training</source>
        <translation>学習</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Evaluation</source>
        <translation>評価</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>A quantization experiment</source>
        <translation>量子化実験</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{what} is still running. Stop it and quit?</source>
        <translation>{what} がまだ実行中です。停止して終了しますか?</translation>
    </message>
    <message>
        <location line="+105"/>
        <source>Created unit network &quot;{value}&quot;; double-click {value2} to open it</source>
        <translation>Unit ネットワーク &quot;{value}&quot; を作成しました。{value2} をダブルクリックすると開きます</translation>
    </message>
    <message>
        <location filename="../../console_app/network_actions.py" line="+21"/>
        <source>Add Network</source>
        <translation>ネットワークを追加</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Rename network</source>
        <translation>ネットワーク名の変更</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>New name of network &quot;{old}&quot;:</source>
        <translation>ネットワーク &quot;{old}&quot; の新しい名前:</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Network &quot;{target}&quot; is used by {join}. Delete it anyway?</source>
        <translation>ネットワーク &quot;{target}&quot; は {join} で使われています。それでも削除しますか?</translation>
    </message>
</context>
<context>
    <name>Palette</name>
    <message>
        <location filename="../../console_app/editor/palette.py" line="+55"/>
        <source>Search layers</source>
        <translation>レイヤーを検索</translation>
    </message>
</context>
<context>
    <name>Plots</name>
    <message>
        <location filename="../../console_app/tabs/plots.py" line="+23"/>
        <source>No curve yet: click Run to train, or select jobs in the history</source>
        <translation>学習曲線はまだありません: [実行] で学習するか、履歴からジョブを選択してください</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Jobs with a validation loss appear here</source>
        <translation>検証ロスのあるジョブがここに表示されます</translation>
    </message>
</context>
<context>
    <name>PluginPanel</name>
    <message>
        <location filename="../../console_app/tabs/plugin_panel.py" line="+114"/>
        <source>Plugin: {name}</source>
        <translation>プラグイン: {name}</translation>
    </message>
    <message>
        <location line="+87"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Right-click the output table to run a plugin</source>
        <translation>出力の表を右クリックしてプラグインを実行します</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plugin folders...</source>
        <translation>プラグインフォルダ...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add a folder of plugins (holding _Post_Process/...)</source>
        <translation>プラグインのフォルダを追加します (_Post_Process/... を含むもの)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Add a plugins folder</source>
        <translation>プラグインフォルダの追加</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Plugins of {folder} added; reading the plugins...</source>
        <translation>{folder} のプラグインを追加しました。プラグインを読み込み中...</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Loading plugins...</source>
        <translation>プラグインを読み込み中...</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>{windowTitle} ({len} selected rows)</source>
        <translation>{windowTitle} ({len} 行を選択)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Running {name}...</source>
        <translation>{name} を実行中...</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Plugin failed: </source>
        <translation>プラグインが失敗しました: </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Plugin {status}</source>
        <translation>プラグイン {status}</translation>
    </message>
</context>
<context>
    <name>Problems</name>
    <message>
        <location filename="../../console_app/editor/values.py" line="+42"/>
        <source>property {name}: a value is required</source>
        <translation>プロパティ {name}: 値が必要です</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>property {name}: *{ident} is neither an argument of network &quot;{network}&quot; (arguments: {declared}) nor an NNC macro of {name}. Received: {name}={raw}</source>
        <translation>プロパティ {name}: *{ident} はネットワーク &quot;{network}&quot; の引数（引数: {declared}）でも {name} の NNC マクロでもありません。入力値: {name}={raw}</translation>
    </message>
    <message>
        <location line="+103"/>
        <source>property {name}: {reason}. Received: {name}={raw}</source>
        <translation>プロパティ {name}: {reason}。入力値: {name}={raw}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>property {name}: unknown name {ident} (not an argument of this network nor a property). Received: {name}={raw}</source>
        <translation>プロパティ {name}: 不明な名前 {ident}（このネットワークの引数でもプロパティでもありません）。入力値: {name}={raw}</translation>
    </message>
    <message>
        <location filename="../../engine/graph/infer.py" line="+40"/>
        <source>unknown layer type {type}</source>
        <translation>不明なレイヤータイプ {type}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown macro *{name}</source>
        <translation>不明なマクロ *{name}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unit network &quot;{network}&quot; does not exist</source>
        <translation>Unit のネットワーク &quot;{network}&quot; がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <location filename="../../engine/graph/validate.py" line="+48"/>
        <source>unit recursion: {path}</source>
        <translation>Unit の再帰: {path}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>in unit network &quot;{network}&quot;, layer &quot;{layer}&quot;: {error}</source>
        <translation>Unit のネットワーク &quot;{network}&quot;、レイヤー &quot;{layer}&quot;: {error}</translation>
    </message>
    <message>
        <location filename="../../engine/graph/validate.py" line="+1"/>
        <source>duplicate layer name {name}</source>
        <translation>レイヤー名 {name} が重複しています</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{type} has no input pin {pin}</source>
        <translation>{type} には入力ピン {pin} がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{count} links go into side input {name}</source>
        <translation>サイド入力 {name} に {count} 本のリンクが入っています</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{type} has no output to link from</source>
        <translation>{type} にはリンク元になる出力がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the links form a cycle: {path}</source>
        <translation>リンクが循環しています: {path}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{type} takes no input but {count} are linked</source>
        <translation>{type} は入力を取りませんが、{count} 本リンクされています</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{type} takes one main input but {count} are linked</source>
        <translation>{type} のメイン入力は 1 つですが、{count} 本リンクされています</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{type} takes 2 inputs but {count} are linked</source>
        <translation>{type} の入力は 2 つですが、{count} 本リンクされています</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>side input {name} needs shape {expected}, the linked layer gives {wired}</source>
        <translation>サイド入力 {name} にはサイズ {expected} が必要ですが、リンクされたレイヤーの出力は {wired} です</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the recurrent input has shape {shape} but Size is {size}</source>
        <translation>再帰入力のサイズは {shape} ですが、Size は {size} です</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{collection}: duplicate name {name}</source>
        <translation>{collection}: 名前 {name} が重複しています</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: no network &quot;{network}&quot;</source>
        <translation>{where}: ネットワーク &quot;{network}&quot; がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: no dataset &quot;{dataset}&quot;</source>
        <translation>{where}: データセット &quot;{dataset}&quot; がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>dataset &quot;{dataset}&quot; has no variable {variable}</source>
        <translation>データセット &quot;{dataset}&quot; に変数 {variable} がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>network &quot;{name}&quot;</source>
        <translation>ネットワーク &quot;{name}&quot;</translation>
    </message>
    <message>
        <location line="+1"/>
        <location filename="../../engine/runtime/session.py" line="+398"/>
        <source>optimizer &quot;{name}&quot;</source>
        <translation>オプティマイザー &quot;{name}&quot;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>monitor &quot;{name}&quot;</source>
        <translation>モニター &quot;{name}&quot;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>executor &quot;{name}&quot;</source>
        <translation>エグゼキューター &quot;{name}&quot;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>layer &quot;{name}&quot;</source>
        <translation>レイヤー &quot;{name}&quot;</translation>
    </message>
    <message>
        <location line="+1"/>
        <location filename="../../engine/layers/evaluate.py" line="+449"/>
        <source>property {prop}: {message}</source>
        <translation>プロパティ {prop}: {message}</translation>
    </message>
    <message>
        <location filename="../../engine/layers/evaluate.py" line="-396"/>
        <source>nothing is linked into its input: draw a link into it from the layer above</source>
        <translation>入力に何もリンクされていません: 上のレイヤーからリンクを引いてください</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>layer type {type} has no property {prop}</source>
        <translation>レイヤータイプ {type} にはプロパティ {prop} がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>layer type {type} has no side connector {name}</source>
        <translation>レイヤータイプ {type} にはサイドコネクター {name} がありません</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>property {prop} refers to itself ({chain})</source>
        <translation>プロパティ {prop} が自分自身を参照しています（{chain}）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>*{name} can only be resolved inside a network</source>
        <translation>*{name} はネットワークの中でのみ解決できます</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown name {name}</source>
        <translation>不明な名前 {name}</translation>
    </message>
    <message>
        <location line="+333"/>
        <source>{macro}: the shape cannot be inferred; connect the input or the output</source>
        <translation>{macro}: サイズを推定できません。入力か出力をリンクしてください</translation>
    </message>
    <message>
        <location line="+60"/>
        <source>property {prop}: {message}. Received: {prop}={shown}</source>
        <translation>プロパティ {prop}: {message}。入力値: {prop}={shown}</translation>
    </message>
    <message>
        <location filename="../../engine/layers/expr.py" line="+122"/>
        <source>unexpected character {character} in {text}</source>
        <translation>{text} に予期しない文字 {character} があります</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>unexpected end of {text}</source>
        <translation>{text} が途中で終わっています</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>expected {expected} but found {token} in {text}</source>
        <translation>{text} で {expected} が必要ですが、{token} がありました</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>empty value</source>
        <translation>値が空です</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+63"/>
        <source>unexpected {token} in {text}</source>
        <translation>{text} に予期しない {token} があります</translation>
    </message>
    <message>
        <location line="-32"/>
        <source>number too long ({count} digits) in the expression</source>
        <translation>式の数値が長すぎます（{count} 桁）</translation>
    </message>
    <message>
        <location line="+86"/>
        <source>{what} must be a number, not {value}</source>
        <translation>{what} は数値でなければなりません（{value} ではなく）</translation>
    </message>
    <message>
        <location line="+64"/>
        <source>{ident}[{position}] is out of range: {ident} is {items}</source>
        <translation>{ident}[{position}] は範囲外です: {ident} は {items} です</translation>
    </message>
    <message>
        <location line="-133"/>
        <source>expected a macro name after &apos;*&apos; in {text}</source>
        <translation>{text} で &apos;*&apos; の後にマクロ名が必要です</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>a *Calc term must be +X or *X, found {term} in {text}</source>
        <translation>*Calc の項は +X か *X でなければなりません。{text} に {term} がありました</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>empty *Calc formula {text}</source>
        <translation>*Calc の式 {text} が空です</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>division by zero</source>
        <translation>ゼロ除算</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>{ident} cannot be indexed by {position}</source>
        <translation>{ident} は {position} でインデックスできません</translation>
    </message>
    <message>
        <location filename="../../engine/layers/macro_args.py" line="+30"/>
        <source>{name} needs {n} entries (one per kernel axis). Received: {name}={items}</source>
        <translation>{name} にはカーネルの軸ごとに 1 つ、計 {n} 個の値が必要です。入力値: {name}={items}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>{name} must be a number. Received: {name}={value}</source>
        <translation>{name} は数値でなければなりません。入力値: {name}={value}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>layer type {type} has no output</source>
        <translation>レイヤータイプ {type} には出力がありません</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>{name}={axis} is not an axis of the input {x} (axes 0..{last}, batch excluded)</source>
        <translation>{name}={axis} は入力 {x} の軸ではありません（軸 0..{last}、バッチを除く）</translation>
    </message>
    <message>
        <location filename="../../engine/layers/macros.py" line="+69"/>
        <source>a {n}-D kernel needs an input with a channel axis and {n} spatial axes. Received: Input={x}</source>
        <translation>{n} 次元のカーネルには、チャンネル軸と {n} 個の空間軸を持つ入力が必要です。入力値: Input={x}</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>the output would be empty ({out}): kernel {kernel} with dilation {dil} does not fit the input {spatial} padded by {pad}</source>
        <translation>出力が空になります（{out}）: Dilation {dil} のカーネル {kernel} が、{pad} でパディングした入力 {spatial} に収まりません</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>the output would be empty ({out}): Padding is too large</source>
        <translation>出力が空になります（{out}）: Padding が大きすぎます</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Group={group} does not divide the {cin} input channels</source>
        <translation>Group={group} が入力チャンネル数 {cin} を割り切れません</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Group={group} does not divide OutMaps={maps}</source>
        <translation>Group={group} が OutMaps={maps} を割り切れません</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>KernelShape={kv},{kh} does not fit the input {x}</source>
        <translation>KernelShape={kv},{kh} が入力 {x} に収まりません</translation>
    </message>
    <message>
        <location line="+69"/>
        <source>a {n}-D kernel needs {n} spatial axes. Received: Input={x}</source>
        <translation>{n} 次元のカーネルには {n} 個の空間軸が必要です。入力値: Input={x}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the output would be empty ({out}): kernel {kernel} is larger than the input {spatial} padded by {pad}</source>
        <translation>出力が空になります（{out}）: カーネル {kernel} が、{pad} でパディングした入力 {spatial} より大きいです</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>PadWidth needs (before, after) pairs for at most {rank} axes. Received: PadWidth={width}</source>
        <translation>PadWidth には最大 {rank} 軸分の (前, 後) の組が必要です。入力値: PadWidth={width}</translation>
    </message>
    <message>
        <location filename="../../engine/layers/macros_axes.py" line="+33"/>
        <source>Axes={axes} are not axes of {x}</source>
        <translation>Axes={axes} は {x} の軸ではありません</translation>
    </message>
    <message>
        <location line="+43"/>
        <location line="+34"/>
        <source>no input is connected</source>
        <translation>入力が接続されていません</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>inputs of different rank cannot be broadcast: {shapes}</source>
        <translation>次元数の異なる入力はブロードキャストできません: {shapes}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>input shapes do not broadcast: {shapes}</source>
        <translation>入力のサイズがブロードキャストできません: {shapes}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>{first} and {second}</source>
        <translation>{first} と {second}</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>inputs must match on every axis except Axis={axis}: {shapes}</source>
        <translation>入力は Axis={axis} 以外のすべての軸で一致しなければなりません: {shapes}</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>stacked inputs must have the same shape: {shapes}</source>
        <translation>Stack する入力は同じサイズでなければなりません: {shapes}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Axis={axis} is out of range for inputs of rank {rank}</source>
        <translation>Axis={axis} は {rank} 次元の入力の範囲外です</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Axes={axes} is not a permutation of the {rank} input axes</source>
        <translation>Axes={axes} は入力の {rank} 個の軸の並べ替えではありません</translation>
    </message>
    <message>
        <location line="+56"/>
        <source>the last input axis ({x}) must equal len(Shape)={length}</source>
        <translation>入力の最後の軸（{x}）は len(Shape)={length} と等しくなければなりません</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>BatchMatmul multiplies 2 inputs, got {count}</source>
        <translation>BatchMatmul は 2 つの入力を掛けますが、入力は {count} 個です</translation>
    </message>
    <message>
        <location line="-91"/>
        <source>OutShape={out} has {count} elements but the input {x} has {size}</source>
        <translation>OutShape={out} の要素数は {count} ですが、入力 {x} の要素数は {size} です</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Start, Stop and Step need one entry per input axis ({x})</source>
        <translation>Start、Stop、Step には入力の軸ごとに 1 つの値が必要です（{x}）</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>the slice is empty ({out}) for the input {x}</source>
        <translation>入力 {x} に対してスライスが空です（{out}）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>the last two axes must be square. Received: Input={x}</source>
        <translation>最後の 2 軸は正方でなければなりません。入力値: Input={x}</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>cannot multiply {shapes}: need (..., M, K) and (..., K, N)</source>
        <translation>{shapes} は掛け算できません: (..., M, K) と (..., K, N) が必要です</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>needs square matrices. Received: Input={x}</source>
        <translation>正方行列が必要です。入力値: Input={x}</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>needs {ndim} signal axes and a trailing axis of 2 (real, imaginary). Received: Input={x}</source>
        <translation>{ndim} 個の信号軸と、サイズ 2（実部、虚部）の最後の軸が必要です。入力値: Input={x}</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>{name}={axes} are not axes of {x}</source>
        <translation>{name}={axes} は {x} の軸ではありません</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Axis={axis} is out of range for the step shape {x}</source>
        <translation>Axis={axis} はステップのサイズ {x} の範囲外です</translation>
    </message>
    <message>
        <location filename="../../engine/layers/property_types.py" line="+79"/>
        <source>property {name}: expected {expected}. Received: {name}={shown}</source>
        <translation>プロパティ {name}: {expected}を指定してください。入力値: {name}={shown}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a comma-separated list of {what}</source>
        <translation>カンマ区切りの{what}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{what} of at most {bound}</source>
        <translation>{bound} 以下の{what}</translation>
    </message>
    <message>
        <location filename="../../engine/graph/config_keys.py" line="+135"/>
        <source>{where}: expected {expected}. Received: {key}={text}</source>
        <translation>{where}: {expected}を指定してください。入力値: {key}={text}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: expected one of {allowed}. Received: {key}={text}</source>
        <translation>{where}: {allowed} のいずれかを指定してください。入力値: {key}={text}</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../../engine/layers/property_types.py" line="+69"/>
        <location line="+164"/>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a finite number</source>
        <translation>有限の数値</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>a value {bounds}</source>
        <translation>{bounds} の値</translation>
    </message>
    <message>
        <location filename="../../engine/layers/property_types.py" line="-135"/>
        <location line="+138"/>
        <source>integers</source>
        <translation>整数</translation>
    </message>
    <message>
        <location line="-105"/>
        <source>a list of shapes such as (3,8,8),(3,8,8)</source>
        <translation>(3,8,8),(3,8,8) のようなサイズのリスト</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>a list of shapes</source>
        <translation>サイズのリスト</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>a number</source>
        <translation>数値</translation>
    </message>
    <message>
        <location line="+29"/>
        <location line="+10"/>
        <source>a comma-separated list of numbers</source>
        <translation>カンマ区切りの数値</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>a list of number lists such as (0.1,0.2),(0.3)</source>
        <translation>(0.1,0.2),(0.3) のような数値リストのリスト</translation>
    </message>
    <message>
        <location line="+15"/>
        <location line="+11"/>
        <source>True or False</source>
        <translation>True か False</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>a positive integer</source>
        <translation>正の整数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a non-negative integer</source>
        <translation>0 以上の整数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>positive integers</source>
        <translation>正の整数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>non-negative integers</source>
        <translation>0 以上の整数</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>a finite number &gt;= 0</source>
        <translation>0 以上の有限の数値</translation>
    </message>
    <message>
        <location filename="../../engine/layers/spec.py" line="+186"/>
        <source>property {name}: expected one of {options}. Received: {name}={value}</source>
        <translation>プロパティ {name}: {options} のいずれかを指定してください。入力値: {name}={value}</translation>
    </message>
    <message>
        <location filename="../../engine/graph/commands.py" line="+130"/>
        <source>nothing to undo</source>
        <translation>元に戻す操作がありません</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>nothing to redo</source>
        <translation>やり直す操作がありません</translation>
    </message>
    <message>
        <location filename="../../engine/graph/network.py" line="+142"/>
        <source>network &quot;{name}&quot;: no layer &quot;{layer}&quot;</source>
        <translation>ネットワーク &quot;{name}&quot;: レイヤー &quot;{layer}&quot; がありません</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>network &quot;{name}&quot;: no link {source} -&gt; {destination} (pin {dest_pin})</source>
        <translation>ネットワーク &quot;{name}&quot;: リンク {source} -&gt; {destination}（ピン {dest_pin}）がありません</translation>
    </message>
    <message>
        <location line="+97"/>
        <source>network &quot;{name}&quot;: a layer named &quot;{new}&quot; already exists</source>
        <translation>ネットワーク &quot;{name}&quot;: &quot;{new}&quot; という名前のレイヤーは既にあります</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>network &quot;{name}&quot;, layer &quot;{layer_name}&quot;: Name is changed by renaming</source>
        <translation>ネットワーク &quot;{name}&quot;、レイヤー &quot;{layer_name}&quot;: Name は名前の変更で変えます</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>network &quot;{name}&quot;: no link #{link}</source>
        <translation>ネットワーク &quot;{name}&quot;: リンク #{link} がありません</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>{where}: expected a Layer. Received: {layer}</source>
        <translation>{where}: Layer が必要です。入力値: {layer}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>{where}: duplicate layer name &quot;{name}&quot;</source>
        <translation>{where}: レイヤー名 &quot;{name}&quot; が重複しています</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{where}, layer &quot;{name}&quot;: Name belongs in Layer.name</source>
        <translation>{where}、レイヤー &quot;{name}&quot;: Name は Layer.name に入れます</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>{where}: expected a Link. Received: {link}</source>
        <translation>{where}: Link が必要です。入力値: {link}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>{where}: link {source} -&gt; {destination} names a missing layer &quot;{end}&quot;</source>
        <translation>{where}: リンク {source} -&gt; {destination} が存在しないレイヤー &quot;{end}&quot; を指しています</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>{where}: link {source} -&gt; {destination}: negative pin</source>
        <translation>{where}: リンク {source} -&gt; {destination}: ピン番号が負です</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>{where}: expected a non-empty one-line name{extra}. Received: {name}</source>
        <translation>{where}: 空でない 1 行の名前が必要です{extra}。入力値: {name}</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>{where}: expected a one-line string. Received: {value}</source>
        <translation>{where}: 1 行の文字列が必要です。入力値: {value}</translation>
    </message>
    <message>
        <location filename="../../engine/data/builtin.py" line="+87"/>
        <source>unknown built-in dataset {name}; choose one of {names}</source>
        <translation>不明な組み込みデータセット {name} です。{names} から選んでください</translation>
    </message>
    <message>
        <location line="+198"/>
        <source>{name}: {stem} images {shape} and labels {shape2} do not match</source>
        <translation>{name}: {stem} の画像 {shape} とラベル {shape2} が一致しません</translation>
    </message>
    <message>
        <location filename="../../engine/data/csv_dataset.py" line="+158"/>
        <source>&quot;{path}&quot;: no variable {name}; the dataset has {names}</source>
        <translation>&quot;{path}&quot;: 変数 {name} がありません。データセットの変数は {names} です</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>{where}: {user} reads a class index from 0 to {value} here. Received: {cell}</source>
        <translation>{where}: {user} はここで 0 から {value} のクラス番号を読みます。入力値: {cell}</translation>
    </message>
    <message>
        <location line="+163"/>
        <source>{where}: expected a file path like the column&apos;s first row (line {lines}); a column holds numbers or file paths, not both. Received: {cell}</source>
        <translation>{where}: 列の最初の行（{lines} 行目）と同じくファイルパスが必要です。1 つの列には数値かファイルパスのどちらかだけを入れます。入力値: {cell}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{where}: {cell} is neither a number nor a file of a supported type ({value})</source>
        <translation>{where}: {cell} は数値でも対応する種類のファイル（{value}）でもありません</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>{where}: a {k1} file in a column of {k0} files (line {lines}); every sample of a variable must be the same kind of file</source>
        <translation>{where}: {k0} ファイルの列に {k1} ファイルがあります（{lines} 行目）。変数のサンプルはすべて同じ種類のファイルでなければなりません</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{where}: file not found: {cell} (looked for {resolved})</source>
        <translation>{where}: ファイルが見つかりません: {cell}（探した場所: {resolved}）</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>{where}: {exc}</source>
        <translation>{where}: {exc}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>{where}: shape {shape} differs from {first} of line {lines}; every sample of a variable must have the same shape</source>
        <translation>{where}: サイズ {shape} が {lines} 行目の {first} と異なります。変数のサンプルはすべて同じサイズでなければなりません</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>{where}: a {dtype} image among {dtype2} images (line {lines}); convert the images to one bit depth</source>
        <translation>{where}: {dtype2} の画像の中に {dtype} の画像があります（{lines} 行目）。画像のビット深度をそろえてください</translation>
    </message>
    <message>
        <location filename="../../engine/data/folders.py" line="+56"/>
        <source>channel must be gray or rgb. Received: channel={channel}</source>
        <translation>channel は gray か rgb でなければなりません。入力値: channel={channel}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>the training ratio must be in (0, 1]. Received: ratio={ratio}</source>
        <translation>学習データの割合は (0, 1] の範囲でなければなりません。入力値: ratio={ratio}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>size must be two positive integers (width, height). Received: {size}</source>
        <translation>size は 2 つの正の整数（幅, 高さ）でなければなりません。入力値: {size}</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>&quot;{source}&quot; is not a folder (expected one sub-folder per class)</source>
        <translation>&quot;{source}&quot; はフォルダーではありません（クラスごとに 1 つのサブフォルダーが必要です）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&quot;{source}&quot; has no sub-folders; put the images of each class into a sub-folder named after the class</source>
        <translation>&quot;{source}&quot; にサブフォルダーがありません。各クラスの画像をクラス名のサブフォルダーに入れてください</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>class folder &quot;{folder}&quot; holds no images ({suffixes})</source>
        <translation>クラスのフォルダー &quot;{folder}&quot; に画像（{suffixes}）がありません</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>&quot;{path}&quot; is {width}x{height} but &quot;{first}&quot; is {first_width}x{first_height}; pass a size to resize every image to</source>
        <translation>&quot;{path}&quot; は {width}x{height} ですが &quot;{first}&quot; は {first_width}x{first_height} です。すべての画像をリサイズするサイズを指定してください</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>output folder &quot;{out}&quot; exists and is not empty; choose a new folder</source>
        <translation>出力フォルダー &quot;{out}&quot; は既にあり、空ではありません。新しいフォルダーを選んでください</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>cannot read image &quot;{path}&quot;: {exc}</source>
        <translation>画像 &quot;{path}&quot; を読み込めません: {exc}</translation>
    </message>
    <message>
        <location filename="../../engine/data/iterator.py" line="+72"/>
        <source>the dataset has no rows to draw a batch from</source>
        <translation>データセットにバッチを作る行がありません</translation>
    </message>
    <message>
        <location line="+126"/>
        <source>not a data iterator state (missing format marker)</source>
        <translation>データイテレーターの状態ではありません（形式の印がありません）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>unsupported data iterator state version {version}</source>
        <translation>対応していないデータイテレーターの状態のバージョン {version} です</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the saved data iterator has {key}={get} but this one has {key2}={mine}; the dataset or the settings changed since it was saved</source>
        <translation>保存したデータイテレーターは {key}={get} ですが、今のものは {key2}={mine} です。保存後にデータセットか設定が変わりました</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the saved data iterator state has an invalid seed or position</source>
        <translation>保存したデータイテレーターの状態のシードか位置が不正です</translation>
    </message>
    <message>
        <location filename="../../engine/data/table.py" line="+75"/>
        <source>dataset CSV not found: &quot;{path}&quot;</source>
        <translation>データセットの CSV が見つかりません: &quot;{path}&quot;</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>cannot read dataset CSV &quot;{path}&quot;: {value}</source>
        <translation>データセットの CSV &quot;{path}&quot; を読み込めません: {value}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&quot;{path}&quot;, line {line}: the file is not UTF-8 text; save it as UTF-8 (NNC dataset CSVs are UTF-8)</source>
        <translation>&quot;{path}&quot;、{line} 行目: ファイルが UTF-8 のテキストではありません。UTF-8 で保存してください（NNC のデータセット CSV は UTF-8 です）</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>&quot;{path}&quot;, line {line}: malformed CSV: {exc}</source>
        <translation>&quot;{path}&quot;、{line} 行目: CSV の形式が不正です: {exc}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&quot;{path}&quot;: the file is empty; the first line must be the header</source>
        <translation>&quot;{path}&quot;: ファイルが空です。1 行目はヘッダーでなければなりません</translation>
    </message>
    <message>
        <location line="+56"/>
        <source>{where}: {len_row} cells, but the header has {width} columns (a comma inside a value needs quotes)</source>
        <translation>{where}: セルが {len_row} 個ですが、ヘッダーの列は {width} 個です（値の中のカンマは引用符で囲みます）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>{where}: empty header cell; every column needs a variable name</source>
        <translation>{where}: ヘッダーのセルが空です。すべての列に変数名が必要です</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&quot;{path}&quot;, line 1: the header names no variable</source>
        <translation>&quot;{path}&quot;、1 行目: ヘッダーに変数名がありません</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>{where} ({text}): no variable name before &apos;:&apos; or &apos;__&apos;</source>
        <translation>{where}（{text}）: &apos;:&apos; または &apos;__&apos; の前に変数名がありません</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{where} ({text}): the text after &apos;__&apos; must be an element index 0, 1, ...; Received: {element_text}</source>
        <translation>{where}（{text}）: &apos;__&apos; の後は要素番号 0, 1, ... でなければなりません。入力値: {element_text}</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>{where} ({header}): variable {variable} appears twice (also column {value})</source>
        <translation>{where}（{header}）: 変数 {variable} が 2 回現れます（列 {value} にも）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>{where} ({header}): variable {variable} is already a whole column (column {value})</source>
        <translation>{where}（{header}）: 変数 {variable} は既に 1 つの列全体です（列 {value}）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>{where} ({header}): the element columns of {variable} must be adjacent</source>
        <translation>{where}（{header}）: {variable} の要素の列は隣り合っていなければなりません</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{where} ({header}): expected {variable}__{expected}; element columns are numbered 0, 1, ... in order</source>
        <translation>{where}（{header}）: {variable}__{expected} が必要です。要素の列は 0, 1, ... の順に番号を付けます</translation>
    </message>
    <message>
        <location filename="../../engine/formats/errors.py" line="+10"/>
        <source>{path}{section}: {message}</source>
        <translation>{path}{section}: {message}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}, line {line}{section}: {message}</source>
        <translation>{path}、{line} 行目{section}: {message}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}, line {line}, column {column}{section}: {message}</source>
        <translation>{path}、{line} 行目 {column} 列{section}: {message}</translation>
    </message>
    <message>
        <location filename="../../engine/formats/detect.py" line="+39"/>
        <source>is a folder, not a project file</source>
        <translation>フォルダーです（プロジェクトファイルではありません）</translation>
    </message>
    <message>
        <location line="+5"/>
        <location filename="../../engine/formats/native.py" line="+197"/>
        <location filename="../../engine/formats/sdcproj.py" line="+242"/>
        <source>cannot read: {value}</source>
        <translation>読み込めません: {value}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the file is empty</source>
        <translation>ファイルが空です</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>not a NeuroCanvas project (.ncproj JSON) or an NNC project (.sdcproj INI)</source>
        <translation>NeuroCanvas のプロジェクト（.ncproj JSON）でも NNC のプロジェクト（.sdcproj INI）でもありません</translation>
    </message>
    <message>
        <location filename="../../engine/formats/native.py" line="-33"/>
        <source>not UTF-8 text (byte {start})</source>
        <translation>UTF-8 のテキストではありません（{start} バイト目）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>invalid JSON: {msg}</source>
        <translation>JSON が不正です: {msg}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>invalid JSON: nested too deeply</source>
        <translation>JSON が不正です: 入れ子が深すぎます</translation>
    </message>
    <message>
        <location filename="../../engine/formats/sdcproj.py" line="-174"/>
        <source>not a text file (it contains NUL bytes)</source>
        <translation>テキストファイルではありません（NUL バイトを含みます）</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>not a text file in UTF-8, cp932 or cp1252</source>
        <translation>UTF-8、cp932、cp1252 のいずれのテキストファイルでもありません</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>bad section header {line}</source>
        <translation>セクションのヘッダー {line} が不正です</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>section [{name}] appears twice (first on line {seen})</source>
        <translation>セクション [{name}] が 2 回現れます（最初は {seen} 行目）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>expected a [Section] header. Received: {line}</source>
        <translation>[Section] のヘッダーが必要です。入力値: {line}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>expected Key=Value. Received: {line}</source>
        <translation>Key=Value の形式が必要です。入力値: {line}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>key {key} appears twice (first on line {first})</source>
        <translation>キー {key} が 2 回現れます（最初は {first} 行目）</translation>
    </message>
    <message>
        <location line="+79"/>
        <source>empty file: no [Section] found</source>
        <translation>空のファイルです: [Section] がありません</translation>
    </message>
    <message>
        <location line="+218"/>
        <source>cannot write key {key} = {value}: not one INI line</source>
        <translation>キー {key} = {value} を書き込めません: INI の 1 行になりません</translation>
    </message>
    <message>
        <location filename="../../engine/graph/config.py" line="+41"/>
        <source>{where}: unknown parameter {name} (it has {known})</source>
        <translation>{where}: 不明なパラメーター {name}（使えるのは {known}）</translation>
    </message>
    <message>
        <location filename="../../engine/graph/statistics.py" line="+137"/>
        <source>with IgnoreBorder=False and Padding, nnabla (and this engine) pools to {runs} where NNC&apos;s editor shows {shown}: the network runs {runs}; the statistics are NNC&apos;s, counted on {shown}</source>
        <translation>IgnoreBorder=False と Padding では、nnabla（とこのエンジン）のプーリング結果は {runs} ですが、NNC のエディタは {shown} と表示します。ネットワークは {runs} で動き、統計量は NNC と同じく {shown} で数えます</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>its layer &quot;{inner}&quot;, property Padding: {message}</source>
        <translation>その中のレイヤー &quot;{inner}&quot;、プロパティ Padding: {message}</translation>
    </message>
    <message>
        <location filename="../../engine/graph/argument_messages.py" line="+13"/>
        <source>unknown argument type {type}</source>
        <translation>不明な引数の型 {type}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>argument of type {type}: {detail}</source>
        <translation>型 {type} の引数: {detail}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>expected {expected}. Received: {name}={shown}</source>
        <translation>{expected}を指定してください。入力値: {name}={shown}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>expected one of {options}. Received: {name}={value}</source>
        <translation>{options} のいずれかを指定してください。入力値: {name}={value}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{message}. Received: {prop}={shown}</source>
        <translation>{message}。入力値: {prop}={shown}</translation>
    </message>
</context>
<context>
    <name>PropertyPane</name>
    <message>
        <location filename="../../console_app/editor/property_pane.py" line="+69"/>
        <location line="+77"/>
        <source>No layer selected</source>
        <translation>レイヤーが選択されていません</translation>
    </message>
    <message>
        <location line="-40"/>
        <source>{len} layers of {len2} types selected: select layers of one type to edit them together</source>
        <translation>{len2} 種類のレイヤーを {len} 個選択しています: まとめて編集するには同じタイプのレイヤーを選択してください</translation>
    </message>
    <message>
        <location line="+48"/>
        <source>: {len} layers, edits apply to all</source>
        <translation>: {len} 個のレイヤー、編集はすべてに適用されます</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>{type_name}; default {default!r}</source>
        <translation>{type_name}。既定値 {default!r}</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Choose a file</source>
        <translation>ファイルの選択</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&lt;span style=&apos;color:#777&apos;&gt;{key}&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#777&apos;&gt;{key}&lt;/span&gt;</translation>
    </message>
    <message>
        <location line="+56"/>
        <source>(several values)</source>
        <translation>(複数の値)</translation>
    </message>
</context>
<context>
    <name>QuantizationExperiment</name>
    <message>
        <location filename="../../console_app/tabs/quantization_experiment.py" line="+48"/>
        <source>error rate</source>
        <translation>エラー率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>parameter bytes</source>
        <translation>パラメータのバイト数</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/plot_canvas.py" line="+105"/>
        <source>bits</source>
        <translation>ビット数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>accuracy (%)</source>
        <translation>精度 (%)</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/quantization_experiment.py" line="+12"/>
        <source>Quantization experiment: {name}</source>
        <translation>量子化実験: {name}</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>also each alone</source>
        <translation>それぞれ単独でも</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Besides the checked targets together, quantize each checked target on its own (which one costs the accuracy)</source>
        <translation>チェックした対象をまとめて量子化するほか、それぞれを単独でも量子化します（どれが精度を下げるかがわかります）</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Run</source>
        <translation>実行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Results go to {out_dir}</source>
        <translation>結果の保存先: {out_dir}</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>{0} points of an earlier sweep in {1}; Run continues it</source>
        <translation>{1} に以前のスイープの {0} 点があります。実行すると続きから進めます</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Bits</source>
        <translation>ビット数</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Quantize</source>
        <translation>量子化の対象</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quantizer</source>
        <translation>量子化器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mode</source>
        <translation>モード</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>QAT epochs</source>
        <translation>QAT のエポック数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Layer sensitivity at (bits)</source>
        <translation>レイヤー感度を調べるビット数</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Mixed precision within (parameter bytes)</source>
        <translation>混合精度の上限 (パラメータのバイト数)</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>Check what to quantize (Quantize: ...)</source>
        <translation>量子化する対象をチェックしてください（量子化の対象: ...）</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Running...</source>
        <translation>実行中...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Stop requested: the finished points are kept</source>
        <translation>停止を要求しました: 終わった点は残ります</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>{value} at {value2} bits ({upper})...</source>
        <translation>{value}、{value2} ビット ({upper})...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Layers ranked at {value} bits (sensitivity.csv)</source>
        <translation>{value} ビットでのレイヤーの順位 (sensitivity.csv)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Mixed precision: network {value} evaluated, {value2:,} bytes, {value3:.2f} %</source>
        <translation>混合精度: ネットワーク {value} を評価、{value2:,} バイト、{value3:.2f} %</translation>
    </message>
    <message>
        <location line="+30"/>
        <source> Results: {out_dir}</source>
        <translation> 結果: {out_dir}</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Layer sensitivity at {value} bits (accuracy points, one layer at a time): {lost}</source>
        <translation>{value} ビットでのレイヤー感度 (精度のポイント、1 レイヤーずつ): {lost}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Mixed precision stopped after {value} evaluations: Run continues it.</source>
        <translation>混合精度は {value} 回の評価で停止しました: [実行] で続きを行います。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Mixed precision within {value:,} bytes ({bits} bits): accuracy {value2:.2f} %, {value3:,} parameter bytes; the most accurate that fits of {len} networks evaluated (mixed_precision.json, job mixed_precision)</source>
        <translation>{value:,} バイト以内の混合精度 ({bits} ビット): 精度 {value2:.2f} %、パラメータ {value3:,} バイト。評価した {len} 個のネットワークのうち収まる中で最も高精度なもの (mixed_precision.json、ジョブ mixed_precision)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>{name}: a quantization experiment needs a finished job</source>
        <translation>{name}: 量子化実験には完了したジョブが必要です</translation>
    </message>
</context>
<context>
    <name>QuantizeDialog</name>
    <message>
        <location filename="../../console_app/editor/quantize_dialog.py" line="-212"/>
        <source>Calibrate from a trained job</source>
        <translation>学習済みジョブからキャリブレーション</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fixed Delta</source>
        <translation>固定の Delta</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Quantize Network</source>
        <translation>ネットワークの量子化</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>auto (unsigned after ReLU)</source>
        <translation>自動 (ReLU の後は符号なし)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>signed</source>
        <translation>符号あり</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unsigned</source>
        <translation>符号なし</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>STEFineGrained (no gradient outside the range)</source>
        <translation>STEFineGrained (範囲外では勾配なし)</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Network</source>
        <translation>ネットワーク</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>New network</source>
        <translation>新しいネットワーク</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quantizer</source>
        <translation>量子化器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bits</source>
        <translation>ビット数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Targets</source>
        <translation>対象</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delta</source>
        <translation>Delta</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Job</source>
        <translation>ジョブ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delta value</source>
        <translation>Delta の値</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sign</source>
        <translation>符号</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Units: they are quantized per call: each Unit layer calls its own quantized copy of its unit network (&lt;New network&gt;_&lt;Unit layer&gt;), with its weights, biases and data paths quantized at these bits and calibrated on that call&apos;s values; its parameters keep their names, so calls that share parameters still share them.</source>
        <translation>Unit: 呼び出しごとに量子化されます。各 Unit レイヤーは自分用に量子化された Unit ネットワークのコピー (&lt;新しいネットワーク&gt;_&lt;Unit レイヤー&gt;) を呼び出し、その重み・バイアス・データの経路はこのビット数で量子化され、その呼び出しの値で較正されます。パラメータ名は変わらないので、パラメータを共有する呼び出しは引き続き共有します。</translation>
    </message>
    <message>
        <location line="+59"/>
        <source>New network: &quot;{name}&quot; is empty or taken</source>
        <translation>新しいネットワーク: &quot;{name}&quot; は空か、既に使われています</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&amp;Quantize Network...</source>
        <translation>ネットワークの量子化(&amp;Q)...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Add a copy of the network with fixed-point quantizers</source>
        <translation>固定小数点の量子化器を入れたネットワークのコピーを追加します</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>a network named &quot;{name}&quot; exists already (the quantized copy of a unit takes that name); rename it or choose another New network name</source>
        <translation>ネットワーク &quot;{name}&quot; は既にあります (Unit の量子化コピーがその名前を使います)。名前を変えるか、別の新しいネットワーク名を選んでください</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Quantize Network: {exc}</source>
        <translation>ネットワークの量子化: {exc}</translation>
    </message>
    <message>
        <location line="+13"/>
        <source> (and {inside} in its quantized unit copies {copies})</source>
        <translation> (さらに量子化した Unit のコピー {copies} に {inside} 個)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Network &quot;{name}&quot;: {count} {layer_type} layers inserted{value}</source>
        <translation>ネットワーク &quot;{name}&quot;: {layer_type} レイヤーを {count} 個挿入しました{value}</translation>
    </message>
</context>
<context>
    <name>Report</name>
    <message>
        <location filename="../../engine/report/compare.py" line="+20"/>
        <source>Job</source>
        <translation>ジョブ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Status</source>
        <translation>状態</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Epochs</source>
        <translation>エポック数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Batch size</source>
        <translation>バッチサイズ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Solver</source>
        <translation>ソルバー</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Learning rate</source>
        <translation>学習率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Best valid error</source>
        <translation>最良の検証エラー</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Comparison of {len} jobs</source>
        <translation>{len} 個のジョブの比較</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Jobs</source>
        <translation>ジョブ</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Learning Curves : {title}</source>
        <translation>学習曲線 : {title}</translation>
    </message>
    <message>
        <location line="+6"/>
        <location filename="../../engine/report/curves.py" line="+78"/>
        <location filename="../../engine/report/sections.py" line="+321"/>
        <source>epoch</source>
        <translation>エポック</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No job has a {title} curve.</source>
        <translation>{title} の曲線を持つジョブはありません。</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Trade-off : best validation loss against {TRADEOFF_STATISTIC}</source>
        <translation>トレードオフ : {TRADEOFF_STATISTIC} に対する最良の検証ロス</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Pareto-optimal jobs (no other job is both cheaper and more accurate):</source>
        <translation>パレート最適なジョブ (より低コストかつ高精度な他のジョブがないもの):</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No job has both a validation loss and statistics yet.</source>
        <translation>検証ロスと統計量の両方を持つジョブはまだありません。</translation>
    </message>
    <message>
        <location filename="../../engine/report/curves.py" line="+1"/>
        <source>cost / loss</source>
        <translation>コスト / ロス</translation>
    </message>
    <message>
        <location line="+95"/>
        <source>best validation loss</source>
        <translation>最良の検証ロス</translation>
    </message>
    <message>
        <location filename="../../engine/report/evaluation.py" line="+20"/>
        <source>Experimental Result : Evaluation</source>
        <translation>実験結果 : 評価</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>Evaluate network &quot;{network}&quot; using &quot;{dataset}&quot; dataset.</source>
        <translation>ネットワーク &quot;{network}&quot; を &quot;{dataset}&quot; データセットで評価しました。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The calculation is executed {n} times for each data.</source>
        <translation>各データについて計算を {n} 回実行します。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The {kind} value is used as a final output.</source>
        <translation>{kind} の値を最終出力とします。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Parameters : the {checkpoint} checkpoint{epoch}; {get:,} data</source>
        <translation>パラメータ : {checkpoint} チェックポイント{epoch}、データ {get:,} 件</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+7"/>
        <source>Variable : {variable_name}</source>
        <translation>変数 : {variable_name}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>This job has not been evaluated yet.</source>
        <translation>このジョブはまだ評価されていません。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>This job has been evaluated with the {get} parameters, not the {wanted} ones asked for.</source>
        <translation>このジョブは指定された {wanted} ではなく {get} のパラメータで評価されています。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Experimental Result : Confusion Matrix of {variable_name}</source>
        <translation>実験結果 : {variable_name} の混同行列</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Rows: the true class; columns: the predicted class; each cell counts data.</source>
        <translation>行: 正解のクラス、列: 予測したクラス、各セルはデータ数です。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{int:,} of {int2:,} data are on the diagonal (accuracy {value:.4f}).</source>
        <translation>{int2:,} 件中 {int:,} 件のデータが対角線上にあります (精度 {value:.4f})。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Experimental Result : Per-class Metrics of {variable_name}</source>
        <translation>実験結果 : {variable_name} のクラス別評価指標</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Class</source>
        <translation>クラス</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Precision</source>
        <translation>適合率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recall</source>
        <translation>再現率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>F-Measure</source>
        <translation>F 値</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Data</source>
        <translation>データ数</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Experimental Result : Misclassified Examples of {variable_name}</source>
        <translation>実験結果 : {variable_name} の誤分類の例</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Every evaluated data is classified correctly.</source>
        <translation>評価したデータはすべて正しく分類されています。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>true {true}, predicted {predicted} ({score:.2f})</source>
        <translation>正解 {true}、予測 {predicted} ({score:.2f})</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The image files of the misclassified data are gone.</source>
        <translation>誤分類したデータの画像ファイルがありません。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{found:,} data misclassified; the {shown} most confident mistakes (true class, predicted class and its score):</source>
        <translation>誤分類したデータ {found:,} 件のうち、確信度の高い誤り {shown} 件 (正解のクラス、予測したクラスとそのスコア):</translation>
    </message>
    <message>
        <location filename="../../engine/report/figures.py" line="+72"/>
        <source>predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>true</source>
        <translation>正解</translation>
    </message>
    <message>
        <location filename="../../engine/report/job_report.py" line="+80"/>
        <source>{job_dir}: not a NeuroCanvas job folder ({exc})</source>
        <translation>{job_dir}: NeuroCanvas のジョブフォルダではありません ({exc})</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{job_dir}: cannot read the job&apos;s project ({exc})</source>
        <translation>{job_dir}: ジョブのプロジェクトを読み込めません ({exc})</translation>
    </message>
    <message>
        <location line="+84"/>
        <source>Job {name}</source>
        <translation>ジョブ {name}</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Extra slides</source>
        <translation>追加のスライド</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{name} could not make its slides: {exc}</source>
        <translation>{name} はスライドを作成できませんでした: {exc}</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>{target}: is a folder; give a .pptx file name</source>
        <translation>{target}: フォルダです。.pptx のファイル名を指定してください</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>{target}: cannot write the report ({value})</source>
        <translation>{target}: レポートを書き込めません ({value})</translation>
    </message>
    <message>
        <location filename="../../engine/report/sections.py" line="-278"/>
        <source>NeuroCanvas {version}, an open-source Neural Network Console</source>
        <translation>NeuroCanvas {version}: オープンソースの Neural Network Console</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Neural Network Console (https://dl.sony.com/): the projects, statistics and report NeuroCanvas follows</source>
        <translation>Neural Network Console (https://dl.sony.com/): NeuroCanvas が準拠するプロジェクト、統計量、レポート</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Neural Network Libraries (https://nnabla.org/): the API NeuroCanvas&apos;s engine mirrors</source>
        <translation>Neural Network Libraries (https://nnabla.org/): NeuroCanvas のエンジンが倣う API</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Dataset : {name}</source>
        <translation>データセット : {name}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The dataset file is no longer available: {csv}</source>
        <translation>データセットのファイルがもうありません: {csv}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>URI : {get}</source>
        <translation>URI : {get}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Number of data : {size:,}</source>
        <translation>データ数 : {size:,}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Variable : {name}</source>
        <translation>変数 : {name}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>    Type : {kind}</source>
        <translation>    タイプ : {kind}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>    Shape : {join}</source>
        <translation>    形状 : {join}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Dataset : Examples of variable {variable} in &quot;{dataset}&quot;</source>
        <translation>データセット : &quot;{dataset}&quot; の変数 {variable} の例</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The example files cannot be read: {first_line}</source>
        <translation>例のファイルを読み込めません: {first_line}</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Network Architecture : {name}</source>
        <translation>ネットワーク構造 : {name}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (unit)</source>
        <translation> (Unit)</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+170"/>
        <location filename="../../engine/report/slides.py" line="+207"/>
        <source> (continued)</source>
        <translation> (続き)</translation>
    </message>
    <message>
        <location line="-163"/>
        <source>Type</source>
        <translation>タイプ</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Value</source>
        <translation>値</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>FLOPs : {flops:,}</source>
        <translation>FLOPs : {flops:,}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unique parameters : {unique_parameters:,} ({parameter_bytes:,} bytes)</source>
        <translation>固有のパラメータ数 : {unique_parameters:,} ({parameter_bytes:,} バイト)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Optimize network &quot;{value}&quot; using &quot;{value2}&quot; dataset.</source>
        <translation>ネットワーク &quot;{value}&quot; を &quot;{value2}&quot; データセットで最適化しました。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Batch size : {value:,}</source>
        <translation>バッチサイズ : {value:,}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>    by accumulating the result of batch-size {batch_size} by {k} times</source>
        <translation>    (バッチサイズ {batch_size} の結果を {k} 回累積)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Solver : {value}</source>
        <translation>ソルバー : {value}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Learning rate({value}) : {value2}</source>
        <translation>学習率({value}) : {value2}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Weight decay : {decay:g}</source>
        <translation>Weight decay : {decay:g}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Weight decay is not applied.</source>
        <translation>Weight decay は適用しません。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Max epoch : {max_epoch}</source>
        <translation>最大エポック数 : {max_epoch}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Training Procedure : {value}</source>
        <translation>学習手順 : {value}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>epochs</source>
        <translation>エポック</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>iterations</source>
        <translation>イテレーション</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The learning rate is multiplied by {gamma:g} every {get} {unit}.</source>
        <translation>学習率は {get} {unit}ごとに {gamma:g} 倍されます。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The learning rate is multiplied by {gamma:g} at {unit} {steps}.</source>
        <translation>学習率は{unit} {steps} で {gamma:g} 倍されます。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The learning rate follows a cosine curve down to 0 at the last epoch.</source>
        <translation>学習率はコサイン曲線に従い、最後のエポックで 0 になります。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The learning rate decays polynomially (power {float:g}) down to 0 at the last epoch.</source>
        <translation>学習率は多項式 (べき {float:g}) で減衰し、最後のエポックで 0 になります。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Linear warm-up over the first {get} {warm_unit}.</source>
        <translation>最初の {get} {warm_unit}で線形にウォームアップします。</translation>
    </message>
    <message>
        <location filename="../../engine/report/curves.py" line="-148"/>
        <location filename="../../engine/report/sections.py" line="+9"/>
        <source>cost</source>
        <translation>コスト</translation>
    </message>
    <message>
        <location line="+1"/>
        <location filename="../../engine/report/sections.py" line="+1"/>
        <source>training loss</source>
        <translation>学習ロス</translation>
    </message>
    <message>
        <location line="+1"/>
        <location filename="../../engine/report/sections.py" line="+1"/>
        <source>validation loss</source>
        <translation>検証ロス</translation>
    </message>
    <message>
        <location filename="../../engine/report/sections.py" line="+6"/>
        <source>Experimental Result : Learning Curve</source>
        <translation>実験結果 : 学習曲線</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The job has not finished an epoch: no learning curve yet.</source>
        <translation>ジョブは 1 エポックも終えていません: 学習曲線はまだありません。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>cost / error</source>
        <translation>コスト / エラー</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>References</source>
        <translation>参考文献</translation>
    </message>
    <message>
        <location filename="../../engine/quantization/report_slides.py" line="+38"/>
        <source>Quantizer</source>
        <translation>量子化器</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Target</source>
        <translation>対象</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>Bits</source>
        <translation>ビット数</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>Mode</source>
        <translation>モード</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+5"/>
        <source>Accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Parameter bytes</source>
        <translation>パラメーターのバイト数</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Rank</source>
        <translation>順位</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Layer</source>
        <translation>レイヤー</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Accuracy lost</source>
        <translation>精度の低下</translation>
    </message>
    <message>
        <location line="+11"/>
        <source> of {name}</source>
        <translation>（{name}）</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+38"/>
        <source>Quantization</source>
        <translation>量子化</translation>
    </message>
    <message>
        <location line="-37"/>
        <source>This sweep cannot be reported: {exc}</source>
        <translation>このスイープはレポートできません: {exc}</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Sweep {name}: no finished point yet.</source>
        <translation>スイープ {name}: 完了した点はまだありません。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Quantization : Results</source>
        <translation>量子化 : 結果</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Quantization : Accuracy against Bits and Model Size</source>
        <translation>量子化 : ビット数とモデルサイズに対する精度</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>QAT ({epochs} epochs)</source>
        <translation>QAT（{epochs} エポック）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delta calibrated</source>
        <translation>Delta はキャリブレーション</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Sweep {name}</source>
        <translation>スイープ {name}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>network {name}</source>
        <translation>ネットワーク {name}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{quantizer} quantizers</source>
        <translation>量子化器 {quantizer}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>{summary}; float accuracy {accuracy}.</source>
        <translation>{summary}。浮動小数点での精度 {accuracy}。</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Each layer alone quantized at {bits} bits (PTQ), ranked by the accuracy lost against the float network.</source>
        <translation>各レイヤーだけを {bits} ビットで量子化し（PTQ）、浮動小数点のネットワークに対する精度の低下の大きい順に並べました。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Mixed bits</source>
        <translation>混合精度のビット数</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Mixed precision for {budget} bytes: stopped after {evaluations} evaluations (run the sweep again to finish).</source>
        <translation>{budget} バイトの混合精度: {evaluations} 回の評価の後に停止しました（完了するにはスイープを再実行してください）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Quantization : Layer Sensitivity</source>
        <translation>量子化 : レイヤーの感度</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Mixed precision for {budget} bytes (Mixed bits): {size} parameter bytes, accuracy {accuracy}.</source>
        <translation>{budget} バイトの混合精度（混合精度のビット数）: パラメーター {size} バイト、精度 {accuracy}。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mixed precision for {budget} bytes (Mixed bits): {size} parameter bytes, accuracy {accuracy}, the most accurate that fits of {count} networks evaluated whole (mixed_precision.json).</source>
        <translation>{budget} バイトの混合精度（混合精度のビット数）: パラメーター {size} バイト、精度 {accuracy}。ネットワーク全体を評価した {count} 個のうち、予算に収まる最も精度の高いものです（mixed_precision.json）。</translation>
    </message>
    <message>
        <location filename="../../engine/quantization/results.py" line="+103"/>
        <source>bits</source>
        <translation>ビット数</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+13"/>
        <source>accuracy (%)</source>
        <translation>精度 (%)</translation>
    </message>
    <message>
        <location line="-12"/>
        <source>Accuracy against bits</source>
        <translation>ビット数に対する精度</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>points</source>
        <translation>点</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Pareto front</source>
        <translation>パレートフロント</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>parameter bytes</source>
        <translation>パラメーターのバイト数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Accuracy against model size</source>
        <translation>モデルサイズに対する精度</translation>
    </message>
</context>
<context>
    <name>ReportAction</name>
    <message>
        <location filename="../../console_app/report_action.py" line="+68"/>
        <source>{name} has not been evaluated yet, so its report would have no evaluation results.

Evaluate it first (its validation data, the best parameters)?</source>
        <translation>{name} はまだ評価されていないため、レポートに評価結果が入りません。

先に評価しますか (検証データ、best パラメータ)?</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Evaluate, then report</source>
        <translation>評価してからレポート</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Report without</source>
        <translation>評価なしでレポート</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Writing the report of {what}...</source>
        <translation>{what} のレポートを作成中...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+78"/>
        <source>PowerPoint report</source>
        <translation>PowerPoint レポート</translation>
    </message>
    <message>
        <location line="-48"/>
        <source>Report: {get}</source>
        <translation>レポート: {get}</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>No report: {last_error}</source>
        <translation>レポートなし: {last_error}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The report is written:
{path}

Open it?</source>
        <translation>レポートを作成しました:
{path}

開きますか?</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>No application here opens PowerPoint files. The report is:
{path}</source>
        <translation>PowerPoint ファイルを開くアプリケーションがありません。レポート:
{path}</translation>
    </message>
</context>
<context>
    <name>SearchControl</name>
    <message>
        <location filename="../../console_app/tabs/search_control.py" line="+71"/>
        <source>structure search {study}: starting...</source>
        <translation>構造自動探索 {study}: 開始中...</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Structure search {get}: {total} attempts, method {get2}, objective {get3}</source>
        <translation>構造自動探索 {get}: 試行 {total} 回、手法 {get2}、目的 {get3}</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>attempt {get} of {total}: {get2}</source>
        <translation>試行 {get}/{total}: {get2}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Attempt {get}: {get2}</source>
        <translation>試行 {get}: {get2}</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>validation error {error:.4g}</source>
        <translation>検証エラー {error:.4g}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Attempt {get}: {shown}</source>
        <translation>試行 {get}: {shown}</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Structure search ended: {get} attempts, Pareto-optimal {get2}</source>
        <translation>構造自動探索が終了しました: 試行 {get} 回、パレート最適 {get2}</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No structure search results yet: enable it in CONFIG &gt; Structure Search, then Run</source>
        <translation>構造自動探索の結果はまだありません: コンフィグ &gt; 構造自動探索 で有効にしてから実行してください</translation>
    </message>
</context>
<context>
    <name>SearchResults</name>
    <message>
        <location filename="../../console_app/tabs/search_results.py" line="+34"/>
        <source>Attempt</source>
        <translation>試行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation loss</source>
        <translation>検証ロス</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mutation</source>
        <translation>変異</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>★ optimal</source>
        <translation>★ 最適</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Structure search {study}</source>
        <translation>構造自動探索 {study}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{len} attempts, {optimal} Pareto-optimal (lowest validation loss for their CostMultiplyAdd). Click a header to sort; double-click an attempt to open its network.</source>
        <translation>試行 {len} 回、パレート最適 {optimal} 件 (その CostMultiplyAdd で最も低い検証ロス)。見出しをクリックで並べ替え、試行をダブルクリックでネットワークを開きます。</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Open network in EDIT</source>
        <translation>編集タブでネットワークを開く</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Close</source>
        <translation>閉じる</translation>
    </message>
</context>
<context>
    <name>StatisticsPane</name>
    <message>
        <location filename="../../console_app/editor/statistics_pane.py" line="+28"/>
        <source>Statistic</source>
        <translation>統計量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Total</source>
        <translation>合計</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Exact count: {exact:,} (NNC shows the same)</source>
        <translation>正確な値: {exact:,} (NNC の表示と同じ)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>NNC&apos;s value: {shown:,} (NNC adds in float32, which rounds above 16,777,216).
Exact count: {exact:,}</source>
        <translation>NNC の値: {shown:,} (NNC は float32 で加算するため 16,777,216 を超えると丸められます)。
正確な値: {exact:,}</translation>
    </message>
</context>
<context>
    <name>Training</name>
    <message>
        <location filename="../../engine/runtime/distributed/shards.py" line="+107"/>
        <location filename="../../engine/runtime/extensions.py" line="+55"/>
        <source>monitor &quot;{monitor}&quot;: network &quot;{network}&quot; has no loss layer</source>
        <translation>モニター &quot;{monitor}&quot;: ネットワーク &quot;{network}&quot; にロスレイヤーがありません</translation>
    </message>
    <message>
        <location line="+6"/>
        <location filename="../../engine/runtime/extensions.py" line="+16"/>
        <source>Validation error is Nan: monitor &quot;{monitor}&quot; reported as 0</source>
        <translation>検証誤差が NaN です: モニター &quot;{monitor}&quot; は 0 として記録しました</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/extensions.py" line="+101"/>
        <source>the cost diverges: epoch {epoch} ended at {cost}, the first iteration was at {start}; the learning rate may be too high</source>
        <translation>コストが発散しています: エポック {epoch} の終了時は {cost}、最初のイテレーションでは {start} でした。学習率が高すぎる可能性があります</translation>
    </message>
    <message>
        <location line="+82"/>
        <source>Precision Half on the CPU: float16 is emulated by NumPy and trains slower than Float</source>
        <translation>CPU での Precision Half: float16 は NumPy でエミュレートされるため、Float より学習が遅くなります</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/program.py" line="+155"/>
        <source>layer &quot;{layer}&quot; ({type}) produced NaN or infinity; its parameter {parameters} holds NaN or infinity</source>
        <translation>レイヤー &quot;{layer}&quot;（{type}）が NaN または無限大を出力しました。そのパラメーター {parameters} が NaN または無限大を含んでいます</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>layer &quot;{layer}&quot; ({type}) produced NaN or infinity</source>
        <translation>レイヤー &quot;{layer}&quot;（{type}）が NaN または無限大を出力しました</translation>
    </message>
    <message>
        <location line="+257"/>
        <source>network &quot;{network}&quot;: its parameters need {need}, more than the {have} of memory available; the largest is {name} of layer &quot;{layer}&quot;, shape {shape}</source>
        <translation>ネットワーク &quot;{network}&quot;: パラメーターに {need} が必要ですが、使えるメモリーは {have} です。最大のものはレイヤー &quot;{layer}&quot; の {name}（サイズ {shape}）です</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/trainer.py" line="+236"/>
        <source>the loss is NaN or infinity</source>
        <translation>ロスが NaN または無限大です</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the loss is NaN or infinity (on the GPU the layer is not searched: rerun with --device cpu)</source>
        <translation>ロスが NaN または無限大です（GPU では原因のレイヤーを探しません: --device cpu で再実行してください）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>NaN or infinity at epoch {epoch}, iteration {iteration} (global iteration {step}): optimizer &quot;{optimizer}&quot;, network &quot;{network}&quot;: {cause}</source>
        <translation>エポック {epoch}、イテレーション {iteration}（通算イテレーション {step}）で NaN または無限大: オプティマイザー &quot;{optimizer}&quot;、ネットワーク &quot;{network}&quot;: {cause}</translation>
    </message>
    <message>
        <location filename="../../engine/data/table.py" line="-233"/>
        <source>&quot;{path}&quot;, line {line}</source>
        <translation>&quot;{path}&quot; の {line} 行目</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&quot;{path}&quot;, column {column} ({header})</source>
        <translation>&quot;{path}&quot; の {column} 列目（{header}）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&quot;{path}&quot;, line {line}, column {column} ({header})</source>
        <translation>&quot;{path}&quot; の {line} 行目、{column} 列目（{header}）</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/datasets.py" line="+28"/>
        <source>dataset &quot;{name}&quot;</source>
        <translation>データセット &quot;{name}&quot;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>dataset</source>
        <translation>データセット</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: no URI; set it to a dataset CSV or builtin:&lt;name&gt;/&lt;split&gt;</source>
        <translation>{where}: URI がありません。データセットの CSV か builtin:&lt;name&gt;/&lt;split&gt; を指定してください</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{where}: URI {uri}: the split must be training or validation. Received: {split}</source>
        <translation>{where}: URI {uri}: 分割は training か validation でなければなりません。入力値: {split}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{where}: URI {uri}: {cause}</source>
        <translation>{where}: URI {uri}: {cause}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: the dataset CSV {path} does not exist (URI {uri})</source>
        <translation>{where}: データセットの CSV {path} がありません（URI {uri}）</translation>
    </message>
    <message>
        <location filename="../../engine/runtime/session.py" line="-240"/>
        <source>the project has no optimizer (CONFIG tab): nothing to train</source>
        <translation>プロジェクトにオプティマイザーがありません（コンフィグタブ）: 学習するものがありません</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>{what}: expected a positive integer. Received: {value}</source>
        <translation>{what}: 正の整数を指定してください。入力値: {value}</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>dataset &quot;{name}&quot; has {rows} rows, fewer than the batch size {batch}: an epoch would have no iteration; lower [Config] BatchSize</source>
        <translation>データセット &quot;{name}&quot; は {rows} 行で、バッチサイズ {batch} より少ないため 1 エポックのイテレーションが 0 になります。[Config] BatchSize を小さくしてください</translation>
    </message>
    <message>
        <location line="+106"/>
        <source>network &quot;{network}&quot; reads variable &quot;{variable}&quot;, which dataset &quot;{name}&quot; ({path}) does not have; it has {names}</source>
        <translation>ネットワーク &quot;{network}&quot; は変数 &quot;{variable}&quot; を読みますが、データセット &quot;{name}&quot;（{path}）にはありません。あるのは {names} です</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>network &quot;{network}&quot; expects variable &quot;{variable}&quot; of shape {shape}, dataset &quot;{name}&quot; gives {have}</source>
        <translation>ネットワーク &quot;{network}&quot; は変数 &quot;{variable}&quot; のサイズを {shape} と想定していますが、データセット &quot;{name}&quot; では {have} です</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>solver {solver}: unknown parameter {display}</source>
        <translation>ソルバー {solver}: 不明なパラメーター {display}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>solver {solver}, parameter {display}: expected a number. Received: {text}</source>
        <translation>ソルバー {solver}、パラメーター {display}: 数値を指定してください。入力値: {text}</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>{where}: network &quot;{network}&quot; has no loss layer to minimize (nor a WorkingMemory to fill)</source>
        <translation>{where}: ネットワーク &quot;{network}&quot; には最小化するロスレイヤーがありません（値を入れる WorkingMemory もありません）</translation>
    </message>
    <message>
        <location filename="../../engine/core/backend.py" line="+114"/>
        <source>GPU not usable, falling back to CPU: {reason}</source>
        <translation>GPU が使えないため CPU で学習します: {reason}</translation>
    </message>
</context>
<context>
    <name>TrainingTab</name>
    <message>
        <location filename="../../console_app/tabs/history_table.py" line="+18"/>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Status</source>
        <translation>状態</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Date</source>
        <translation>日時</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Epoch</source>
        <translation>エポック</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cost</source>
        <translation>コスト</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training loss</source>
        <translation>学習ロス</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation loss</source>
        <translation>検証ロス</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>finished</source>
        <translation>完了</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>interrupted</source>
        <translation>中断</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/training_tab.py" line="+96"/>
        <source>Run</source>
        <translation>実行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Train the current project (a snapshot of it) in a new job</source>
        <translation>現在のプロジェクト (そのスナップショット) を新しいジョブで学習します</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save a checkpoint, then end the run</source>
        <translation>チェックポイントを保存して実行を終了します</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Resume</source>
        <translation>再開</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_buttons.py" line="+22"/>
        <source>{name} has no trained parameters (no checkpoint): its training ended before its first epoch. Fix the problem and press Run.</source>
        <translation>{name} には学習済みのパラメータがありません (チェックポイントなし): 最初のエポックの前に学習が終了しました。問題を直して [実行] を押してください。</translation>
    </message>
    <message>
        <location line="+18"/>
        <location filename="../../console_app/tabs/training_tab.py" line="+2"/>
        <source>Continue the selected stopped job from its checkpoint</source>
        <translation>停止した選択中のジョブをチェックポイントから続けます</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/training_tab.py" line="+11"/>
        <source>Array backend of the trainer (auto: GPU when CuPy finds one)</source>
        <translation>学習に使う配列バックエンド (auto: CuPy が GPU を見つけたら GPU)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Data-parallel trainers started through mpirun (one per GPU on a GPU machine); Batch Size is per process, so the global batch is Processes x Batch Size</source>
        <translation>mpirun で起動するデータ並列の学習プロセス数 (GPU マシンでは GPU ごとに 1 つ)。Batch Size はプロセスごとなので、全体のバッチはプロセス数 x Batch Size です</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+114"/>
        <source>No run</source>
        <translation>実行なし</translation>
    </message>
    <message>
        <location line="-99"/>
        <source>Device:</source>
        <translation>デバイス:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Processes:</source>
        <translation>プロセス数:</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Search results...</source>
        <translation>探索結果...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The newest structure search&apos;s attempts</source>
        <translation>最新の構造自動探索の試行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Log scale</source>
        <translation>対数目盛</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Trade-off against:</source>
        <translation>トレードオフの相手:</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Rename...</source>
        <translation>名前の変更...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete...</source>
        <translation>削除...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open network in EDIT</source>
        <translation>編集タブでネットワークを開く</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Report...</source>
        <translation>レポート...</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_buttons.py" line="-13"/>
        <source>Write the selected job&apos;s PowerPoint report (several selected: a comparison deck)</source>
        <translation>選択したジョブの PowerPoint レポートを作成します (複数選択時は比較資料)</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/training_tab.py" line="+6"/>
        <source>Quantization experiment...</source>
        <translation>量子化実験...</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Job history (select several to overlay their curves)</source>
        <translation>ジョブ履歴 (複数選択すると学習曲線を重ねて表示)</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>cannot write the project snapshot: {exc}</source>
        <translation>プロジェクトのスナップショットを書き込めません: {exc}</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>{name}: no checkpoint to resume from</source>
        <translation>{name}: 再開するためのチェックポイントがありません</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Stop requested: saving a checkpoint...</source>
        <translation>停止を要求しました: チェックポイントを保存中...</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>{name}: starting...</source>
        <translation>{name}: 開始中...</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>{device} x {k} processes</source>
        <translation>{device} x {k} プロセス</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> per process</source>
        <translation>（プロセスごと）</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_dialogs.py" line="+62"/>
        <location filename="../../console_app/tabs/training_tab.py" line="-16"/>
        <source>ERROR: {message}</source>
        <translation>エラー: {message}</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/training_tab.py" line="+18"/>
        <source>Training on {on}, {get} epochs of {get2} iterations, batch size {get3}{per}, seed {get4}</source>
        <translation>{on} で学習: {get} エポック (1 エポック {get2} イテレーション)、バッチサイズ {get3}{per}、シード {get4}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>asked for the GPU, training on {device}</source>
        <translation>GPU が指定されましたが {device} で学習します</translation>
    </message>
    <message>
        <location line="+16"/>
        <location line="+55"/>
        <source>ERROR: {get}</source>
        <translation>エラー: {get}</translation>
    </message>
    <message>
        <location line="-40"/>
        <source>epoch {get}, iteration {iteration}/{total}</source>
        <translation>エポック {get}、イテレーション {iteration}/{total}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>elapsed {duration}, remaining {duration2}</source>
        <translation>経過 {duration}、残り {duration2}</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>WARNING: {message}</source>
        <translation>警告: {message}</translation>
    </message>
    <message>
        <location line="-5"/>
        <location line="+6"/>
        <source>Warning: </source>
        <translation>警告: </translation>
    </message>
    <message>
        <location line="+14"/>
        <source>FAILED</source>
        <translation>失敗</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>FAILED: {first}</source>
        <translation>失敗: {first}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Training failed: {first}</source>
        <translation>学習に失敗しました: {first}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Training failed</source>
        <translation>学習に失敗しました</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>  |  Warning: </source>
        <translation>  |  警告: </translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Accuracy of the job&apos;s last evaluation</source>
        <translation>ジョブの最新の評価での精度</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/history_table.py" line="+49"/>
        <source>Quantization experiment {0} of {1}: {2} points</source>
        <translation>{1} の量子化実験 {0}: {2} 点</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Quantization experiment {0}: {1} points</source>
        <translation>量子化実験 {0}: {1} 点</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Click to show or hide the experiment&apos;s points</source>
        <translation>クリックで実験の各点を表示・非表示</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_buttons.py" line="+15"/>
        <source>{name} has no checkpoint to continue from: it ended before its first epoch. Fix the problem and press Run.</source>
        <translation>{name} には続きに使えるチェックポイントがありません: 最初のエポックの前に終了しました。問題を直して [実行] を押してください。</translation>
    </message>
    <message>
        <location filename="../../console_app/tabs/job_dialogs.py" line="-33"/>
        <location line="+36"/>
        <source>NeuroCanvas</source>
        <translation>NeuroCanvas</translation>
    </message>
    <message>
        <location line="-23"/>
        <source>Rename job</source>
        <translation>ジョブ名の変更</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Job name:</source>
        <translation>ジョブ名:</translation>
    </message>
</context>
</TS>
