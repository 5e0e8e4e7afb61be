#pragma once

// The Frame Analyzer: the last committed frame as a grid of chip-bus owners, one cell per
// colour clock (227 across, 313 down for PAL), a colour per owner with a legend, a strip
// beside it that shows each line's share per owner, and a readout of the slot under the
// mouse (hover) or the one clicked. The full 24-byte record shows when slot recording was
// armed for the whole frame (the window arms it while this pane is visible).

#include "app/control/snapshot.h"

#include <QImage>
#include <QWidget>
#include <memory>

class QLabel;

namespace copperline {

class FrameAnalyzer : public QWidget {
    Q_OBJECT
public:
    explicit FrameAnalyzer(QWidget* parent = nullptr);

    // Shows a frame's owners; the same grid again costs nothing.
    void setGrid(std::shared_ptr<const OwnerGrid> grid);
    const OwnerGrid* grid() const { return grid_.get(); }
    // One pixel per colour clock, coloured by owner: what the grid shows before scaling.
    const QImage& image() const { return image_; }
    static QRgb ownerColour(BusOwner owner);

    // The readout of a slot: its position and owner, and the record's fields when recorded.
    QString describe(unsigned vpos, unsigned hpos) const;
    QString readout() const;
    // Pins the readout to a slot, as a click does.
    void select(unsigned vpos, unsigned hpos);

    // The grid view and where a cell's centre lies in it (for tests that move the mouse).
    QWidget* gridView() const;
    QPointF cellCentre(unsigned vpos, unsigned hpos) const;

signals:
    void slotSelected(unsigned vpos, unsigned hpos);

private:
    friend class OwnerGridView;
    void hover(int vpos, int hpos);

    std::shared_ptr<const OwnerGrid> grid_;
    QImage image_, strip_;
    int selectedV_ = -1, selectedH_ = -1, hoverV_ = -1, hoverH_ = -1;
    class OwnerGridView* view_ = nullptr;
    class OwnerLegend* legend_ = nullptr;
    QLabel* readout_ = nullptr;
};

} // namespace copperline
