// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Frame Analyzer: the last committed frame as a grid of chip-bus owners, one cell per
// colour clock (227 across, 313 down for PAL), a colour per owner with a legend, a gutter
// beside it with each line's share per owner, and a readout of the slot under the mouse
// (hover) or the one clicked. The full 24-byte record shows when slot recording was armed
// for the whole frame (the window arms it while this pane is visible). A line axis (left)
// and a colour-clock axis (top) number the grid in hex and scroll with it; the zoom (the
// buttons, the zoom box, Ctrl+wheel, + and -) sets a cell's size, 2 x 1 pixels times 1 to 8.
// The readout follows the frame shown: a new grid redescribes the cell under the mouse.
//
// In its CPU-waits mode the grid paints only the clocks the CPU asked for and was denied,
// each in the colour of the owner that denied it, and the gutter shows each line's share
// of denied clocks. Below the grid, two pages: the frame's blits (selecting one shows its
// channels and result, drawn from the DMA words it moved) and the CPU's waits (counters by
// denier and by access kind, and the most stalled instructions; activating one asks the
// window to show it in the disassembly). Everything comes from frame.waits, frame.blits
// and blit.render, the commands the control socket has.
//
// Frames around the frame: with setFrames the grid is one strip of lines across the frame
// before, the committed frame and, while the machine stands, the frame in progress to the
// beam (clocks not yet run are black). The grid scrolls across the frame boundaries (a
// line marks each, and the line axis numbers each frame's lines from $00); the waits mode
// paints the neighbours' denied clocks too, and a blit selected in the list is drawn whole
// from its start to its end, across the vertical blank if it spans it (a blit keeps its id
// in both frames, so its two halves are joined by id). The pane's own coordinates (vpos,
// hpos) are the committed frame's; `row` coordinates are the strip's.

#include "app/control/snapshot.h"

#include <QImage>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>
#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QTabWidget;
class QTemporaryDir;
class QToolButton;
class QTreeWidget;

namespace copperline {

class FrameAnalyzer : public QWidget {
    Q_OBJECT
public:
    // How the pane sends a command; the reply comes back on the UI thread.
    using Send =
        std::function<void(const std::string& method, const nlohmann::json& params,
                           std::function<void(bool ok, const nlohmann::json& result)> reply)>;
    enum class Mode { Owners, CpuWaits };

    // Without `send` the pane shows owners only (no waits, no blits).
    explicit FrameAnalyzer(Send send = {}, QWidget* parent = nullptr);
    ~FrameAnalyzer() override;

    // Shows a frame's owners; the same grid again costs nothing. A new frame asks for its
    // waits and blits.
    void setGrid(std::shared_ptr<const OwnerGrid> grid);
    const OwnerGrid* grid() const { return grid_.get(); }
    // The committed frame with the one before it and the one in progress (either may be
    // null), as the snapshot has them.
    void setFrames(std::shared_ptr<const OwnerGrid> previous, std::shared_ptr<const OwnerGrid> grid,
                   std::shared_ptr<const OwnerGrid> progress);
    const OwnerGrid* previousGrid() const { return previous_.get(); }
    const OwnerGrid* progressGrid() const { return progress_.get(); }
    // The whole strip, one pixel per colour clock, the frames stacked in time order; and
    // the strip row of the committed frame's line 0.
    const QImage& stripImage() const { return band_; }
    int committedRow() const { return committedRow_; }
    // The frame and line a strip row shows (false past the strip).
    bool frameLineAt(int row, std::uint64_t& frame, unsigned& vpos) const;
    // The selected blit as drawn: from (row0, h0) to (row1, h1), strip rows, both inclusive
    // (the end is the beam's clock while it still runs); false when none is drawn.
    struct Span {
        int row0 = 0, h0 = 0, row1 = 0, h1 = 0;
        bool toBeam = false;
    };
    bool blitSpan(Span& span) const;
    // One pixel per colour clock, as the grid shows it before scaling: coloured by owner,
    // or in CPU-waits mode by the denier of each denied clock.
    const QImage& image() const { return image_; }
    static QRgb ownerColour(BusOwner owner);
    // The colour of a clock the CPU was not denied, in CPU-waits mode.
    static QRgb notDeniedColour();

    void setMode(Mode mode);
    Mode mode() const { return mode_; }

    // The zoom: a colour clock's cell is 2 * zoom pixels across and zoom pixels down.
    static constexpr int kMinZoom = 1, kMaxZoom = 8, kDefaultZoom = 2;
    void setZoom(int zoom);
    int zoom() const;
    QSize cellSize() const;
    // Scrolls the grid so that this cell is at its top left (as near as the range allows).
    void scrollTo(unsigned vpos, unsigned hpos);

    // The axes and the labels they paint: `at` is the label's centre along its axis, in
    // the axis widget's pixels (the line axis's y, the clock axis's x), `value` the line
    // or clock it numbers.
    struct AxisLabel {
        int at = 0;
        unsigned value = 0;
        QString text;
    };
    QWidget* lineAxis() const;
    QWidget* clockAxis() const;
    std::vector<AxisLabel> axisLabels(Qt::Orientation orientation) const;

    // The readout of a slot: its position and owner, and the record's fields when recorded.
    QString describe(unsigned vpos, unsigned hpos) const;
    // The same for a strip row.
    QString describeRow(int row, unsigned hpos) const;
    QString readout() const;
    // Pins the readout to a slot, as a click does.
    void select(unsigned vpos, unsigned hpos);

    // The grid's viewport and where a cell's centre lies in it (for tests that move the
    // mouse); a cell scrolled out of view lies outside it.
    QWidget* gridView() const;
    QPointF cellCentre(unsigned vpos, unsigned hpos) const;

    // The frame the waits and blits shown belong to (-1: none yet).
    std::int64_t detailFrame() const { return detailFrame_; }
    QTreeWidget* blitList() const { return blits_; }
    QTreeWidget* stallList() const { return stalls_; }
    QString waitCounters() const;
    // Selects the blit with this id in the list (as a click does) and asks for its previews.
    bool selectBlit(std::uint32_t id);
    // The preview of a channel ("A", "B", "C", "D", "result") of the selected blit; null
    // when the blit has no such channel or the picture has not arrived.
    QImage preview(const QString& channel) const;
    // Asks again for the frame's waits and blits.
    void reload();

signals:
    void slotSelected(unsigned vpos, unsigned hpos);
    // A stalled instruction was activated in the list.
    void pcActivated(std::uint32_t pc);
    // The waits, the blits or a preview arrived.
    void detailsChanged();

private:
    friend class OwnerGridView;
    void hover(int vpos, int hpos);
    // The readout for the hovered cell, else the selected one, of the grid shown now.
    void refreshReadout();
    QString hint() const;
    void zoomChanged();
    void rebuildImage();
    void requestDetails();
    void showWaits(const nlohmann::json& waits);
    void showBlits(const nlohmann::json& blits);
    void requestPreviews(std::uint32_t id);
    void requestNeighbours();
    void selectRow(int row, unsigned hpos);
    void updateSpan();
    struct Part {
        const OwnerGrid* grid = nullptr;
        int firstRow = 0;
    };
    // The part of the strip a row lies in (null past it).
    const Part* partAt(int row) const;
    int rowOf(std::uint64_t frame, unsigned vpos, bool& found) const;
    // One frame's CPU waits: each clock's denier (0, or 1 + owner) and each line's count.
    struct Waits {
        std::vector<std::uint8_t> deniers;
        std::vector<unsigned> lines;
        unsigned lineCck = 0;
    };
    void paintFrame(const OwnerGrid& g, const Waits* waits, QImage& img, QImage& strip,
                    int firstRow) const;

    Send send_;
    Mode mode_ = Mode::Owners;
    std::shared_ptr<const OwnerGrid> grid_, previous_, progress_;
    QImage image_, band_, strip_; // the committed frame; the strip of frames and its gutter
    std::vector<Part> parts_;
    int committedRow_ = 0;
    std::vector<std::uint8_t> bandOwners_; // the strip's owners, OwnerGrid::kStride a row
    Waits previousWaits_, progressWaits_;
    std::shared_ptr<const OwnerGrid> previousWaitsFor_; // the grid previousWaits_ belongs to
    std::shared_ptr<const OwnerGrid> progressWaitsFor_;
    nlohmann::json progressBlits_ = nlohmann::json::array();
    int neighbourSerial_ = 0;
    Span span_;
    bool spanShown_ = false;
    bool blitChosen_ = false; // previewId_ names the blit chosen in the list
    int selectedV_ = -1, selectedH_ = -1, hoverV_ = -1, hoverH_ = -1;
    class OwnerGridView* view_ = nullptr;
    class OwnerLegend* legend_ = nullptr;
    QLabel* readout_ = nullptr;
    QComboBox* modeBox_ = nullptr;
    QComboBox* zoomBox_ = nullptr;
    QToolButton* zoomIn_ = nullptr;
    QToolButton* zoomOut_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QTreeWidget* blits_ = nullptr;
    QTreeWidget* stalls_ = nullptr;
    QLabel* counters_ = nullptr;
    QLabel* blitInfo_ = nullptr;
    std::array<QLabel*, 5> previewLabels_{};
    std::array<QImage, 5> previews_;
    std::unique_ptr<QTemporaryDir> scratch_; // where blit.render writes the previews

    // The waits of detailFrame_: the denier of each clock (0: not denied, else 1 + owner)
    // and each line's denied clocks.
    std::int64_t detailFrame_ = -1;
    std::uint64_t requestedFor_ = ~0ull; // the grid frame the last request was for
    bool waitingDetails_ = false;
    std::vector<std::uint8_t> deniers_;
    std::vector<unsigned> lineWaits_;
    unsigned waitLineCck_ = 0;
    nlohmann::json blitList_ = nlohmann::json::array();
    std::uint32_t previewId_ = 0;
    int previewSerial_ = 0;
};

} // namespace copperline
